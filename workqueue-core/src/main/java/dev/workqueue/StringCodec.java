package dev.workqueue;

/**
 * {@link ItemCodec#strings()}: a string item is its own identity. The stores keep it as
 * UTF-8, which cannot hold a lone surrogate (half of a UTF-16 pair): such a string is
 * refused, since it would come back as {@code ?} and two different items would become
 * one.
 */
enum StringCodec implements ItemCodec<String> {

	INSTANCE;

	@Override
	public String encode(String item) {
		for (int i = 0; i < item.length(); i++) {
			char c = item.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < item.length() && Character.isLowSurrogate(item.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				throw new IllegalArgumentException(
						"item holds a lone surrogate (U+" + Integer.toHexString(c).toUpperCase() + ") at index " + i
								+ ", which cannot be kept as UTF-8; encode such items with an ItemCodec of your own");
			}
		}
		return item;
	}

	@Override
	public String decode(String encoded) {
		return encoded;
	}

	@Override
	public String toString() {
		return "ItemCodec.strings()";
	}

}
