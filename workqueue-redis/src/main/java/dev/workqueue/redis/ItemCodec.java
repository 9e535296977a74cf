package dev.workqueue.redis;

/**
 * The codec of the Redis backend's first release, now {@link dev.workqueue.ItemCodec} in
 * core (the PostgreSQL backend uses it too). Kept so that code written against it
 * compiles unchanged: every builder takes the core interface, which this one extends.
 *
 * @param <T> the item type
 * @deprecated use {@link dev.workqueue.ItemCodec}
 */
@Deprecated
public interface ItemCodec<T> extends dev.workqueue.ItemCodec<T> {

	/**
	 * Returns the codec of string items, as {@link dev.workqueue.ItemCodec#strings()}.
	 * @return the identity codec
	 * @deprecated use {@link dev.workqueue.ItemCodec#strings()}
	 */
	@Deprecated
	static ItemCodec<String> strings() {
		dev.workqueue.ItemCodec<String> strings = dev.workqueue.ItemCodec.strings();
		return new ItemCodec<>() {

			@Override
			public String encode(String item) {
				return strings.encode(item);
			}

			@Override
			public String decode(String encoded) {
				return strings.decode(encoded);
			}

			@Override
			public String toString() {
				return strings.toString();
			}

		};
	}

}
