package dev.workqueue.redis;

/**
 * {@link ItemCodec#strings()}: a string item is its own identity.
 */
enum StringCodec implements ItemCodec<String> {

	INSTANCE;

	@Override
	public String encode(String item) {
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
