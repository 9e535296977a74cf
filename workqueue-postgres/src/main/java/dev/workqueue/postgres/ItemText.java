package dev.workqueue.postgres;

import java.util.Objects;

import dev.workqueue.ItemCodec;

/**
 * Items as the text that identifies them in the table, checked before any SQL: not
 * {@code null} in or out, and no NUL character, which PostgreSQL's {@code text} cannot
 * hold.
 *
 * @param <T> the item type
 */
final class ItemText<T> {

	private final ItemCodec<T> codec;

	ItemText(ItemCodec<T> codec) {
		this.codec = codec;
	}

	/**
	 * Encodes an item.
	 * @param item the item
	 * @return its text
	 * @throws NullPointerException if the item or its encoding is {@code null}
	 * @throws IllegalArgumentException if its encoding holds a NUL character
	 */
	String encode(T item) {
		Objects.requireNonNull(item, "item");
		String encoded = Objects.requireNonNull(this.codec.encode(item), "codec.encode(item)");
		int nul = encoded.indexOf('\0');
		if (nul >= 0) {
			throw new IllegalArgumentException("item must not encode to text holding a NUL character (U+0000), "
					+ "which PostgreSQL cannot store: its encoding has one at index " + nul
					+ "; use a codec that escapes it");
		}
		return encoded;
	}

	/**
	 * Decodes an item's text.
	 * @param encoded the text
	 * @return the item
	 * @throws RuntimeException if the codec cannot read it, or reads {@code null}
	 */
	T decode(String encoded) {
		return Objects.requireNonNull(this.codec.decode(encoded), "codec.decode(encoded)");
	}

}
