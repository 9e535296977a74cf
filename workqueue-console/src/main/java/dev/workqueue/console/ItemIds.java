package dev.workqueue.console;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Opaque ids of items: an HMAC of the item's text under a key drawn at random when the
 * application starts, so that an item keeps its id while the application runs, and the id
 * tells nothing of the text (the page can name an item without being sent its text).
 * <p>
 * Thread-safe: each call uses a {@link Mac} of its own.
 */
final class ItemIds {

	private static final String ALGORITHM = "HmacSHA256";

	/** 128 bits of the MAC: enough to tell apart every item a queue can list. */
	private static final int ID_BYTES = 16;

	private final SecretKeySpec key;

	ItemIds(SecureRandom random) {
		byte[] secret = new byte[32];
		random.nextBytes(secret);
		this.key = new SecretKeySpec(secret, ALGORITHM);
	}

	/**
	 * Returns the id of an item.
	 * @param text the item's text
	 * @return its id: URL-safe, 22 characters
	 */
	String id(String text) {
		try {
			Mac mac = Mac.getInstance(ALGORITHM);
			mac.init(this.key);
			byte[] digest = mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, ID_BYTES));
		}
		catch (GeneralSecurityException ex) {
			// HmacSHA256 is required of every Java platform.
			throw new IllegalStateException(ex);
		}
	}

}
