package dev.workqueue.redis;

import java.util.Objects;

import dev.workqueue.ItemCodec;

/**
 * Encoding an item with its codec, checked: not {@code null} in, not {@code null} out.
 */
final class ItemCodecs {

	private ItemCodecs() {
	}

	static <T> String encode(ItemCodec<T> codec, T item) {
		Objects.requireNonNull(item, "item");
		return Objects.requireNonNull(codec.encode(item), "codec.encode(item)");
	}

}
