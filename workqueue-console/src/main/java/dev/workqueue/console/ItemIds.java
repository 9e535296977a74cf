package dev.workqueue.console;

import java.nio.ByteBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Opaque ids of items: the item's text encrypted, deterministically and authenticated,
 * under keys drawn at random when the application starts. The same text keeps its id
 * while the application runs; the id tells nothing of the text, yet this instance turns
 * it back into the text, so the page can name any item without being sent its text, and
 * an id this instance did not issue is told apart.
 * <p>
 * The nonce is the first 12 bytes of an HMAC-SHA256 of the text under one key; the text
 * is sealed with AES-GCM under another key with that nonce; the id is the nonce and the
 * sealed text, base64url. A nonce repeats only with its text, so the same text is always
 * sealed the same way and never two texts under one nonce.
 * <p>
 * Thread-safe: each call uses a {@link Mac} and a {@link Cipher} of its own.
 */
final class ItemIds {

	private static final String MAC = "HmacSHA256";

	private static final String CIPHER = "AES/GCM/NoPadding";

	private static final int NONCE_BYTES = 12;

	private static final int TAG_BITS = 128;

	/** The first byte of sealed {@code char}s: a byte that never begins UTF-8. */
	private static final byte CHARS = (byte) 0xFF;

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private final SecretKeySpec nonceKey;

	private final SecretKeySpec cipherKey;

	ItemIds(SecureRandom random) {
		this.nonceKey = new SecretKeySpec(randomBytes(random), MAC);
		this.cipherKey = new SecretKeySpec(randomBytes(random), "AES");
	}

	private static byte[] randomBytes(SecureRandom random) {
		byte[] bytes = new byte[32];
		random.nextBytes(bytes);
		return bytes;
	}

	/**
	 * Returns the id of an item.
	 * @param text the item's text
	 * @return its id: URL-safe base64 of the nonce, the sealed text (as long as its UTF-8
	 * bytes, see {@link #bytes}) and the tag, 28 bytes more than the text
	 */
	String id(String text) {
		byte[] plain = bytes(text);
		try {
			Mac mac = Mac.getInstance(MAC);
			mac.init(this.nonceKey);
			byte[] nonce = Arrays.copyOf(mac.doFinal(plain), NONCE_BYTES);
			Cipher cipher = Cipher.getInstance(CIPHER);
			cipher.init(Cipher.ENCRYPT_MODE, this.cipherKey, new GCMParameterSpec(TAG_BITS, nonce));
			ByteBuffer id = ByteBuffer.allocate(NONCE_BYTES + cipher.getOutputSize(plain.length));
			id.put(nonce);
			cipher.doFinal(ByteBuffer.wrap(plain), id);
			return ENCODER.encodeToString(id.array());
		}
		catch (GeneralSecurityException ex) {
			// HmacSHA256 and AES/GCM/NoPadding are required of every Java platform.
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The bytes an id seals: the text's UTF-8, or, for text that is not well-formed (a
	 * lone surrogate, which UTF-8 cannot hold and the JDK's encoder writes as {@code ?}),
	 * {@link #CHARS} and each {@code char} in two bytes, as no charset of the JDK keeps a
	 * lone surrogate either: one text, one id.
	 */
	private static byte[] bytes(String text) {
		CharsetEncoder utf8 = StandardCharsets.UTF_8.newEncoder();
		if (utf8.canEncode(text)) {
			return text.getBytes(StandardCharsets.UTF_8);
		}
		ByteBuffer chars = ByteBuffer.allocate(1 + 2 * text.length()).put(CHARS);
		chars.asCharBuffer().put(text);
		return chars.array();
	}

	private static String text(byte[] plain) {
		if (plain.length > 0 && plain[0] == CHARS) {
			return ByteBuffer.wrap(plain, 1, plain.length - 1).slice().asCharBuffer().toString();
		}
		return new String(plain, StandardCharsets.UTF_8);
	}

	/**
	 * Returns the text of the item an id names.
	 * @param id an id
	 * @return the item's text; empty if this instance did not issue the id (another
	 * instance, an earlier run, a forgery)
	 */
	Optional<String> text(String id) {
		byte[] sealed;
		try {
			sealed = Base64.getUrlDecoder().decode(id);
		}
		catch (IllegalArgumentException ex) {
			return Optional.empty();
		}
		// Base64 leaves spare bits in a last character; other spellings of those bits
		// decode to the same bytes but are not the id this instance issued.
		if (sealed.length < NONCE_BYTES + TAG_BITS / Byte.SIZE || !ENCODER.encodeToString(sealed).equals(id)) {
			return Optional.empty();
		}
		try {
			Cipher cipher = Cipher.getInstance(CIPHER);
			cipher.init(Cipher.DECRYPT_MODE, this.cipherKey, new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
			byte[] plain = cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
			return Optional.of(text(plain));
		}
		catch (AEADBadTagException ex) {
			return Optional.empty();
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
