package dev.workqueue.sample;

/**
 * A request field is invalid; answered with 400 naming the field.
 */
public class InvalidRequestException extends RuntimeException {

	private final String field;

	InvalidRequestException(String field, String problem) {
		super(field + " " + problem);
		this.field = field;
	}

	/**
	 * Returns the name of the invalid field.
	 * @return the field
	 */
	public String getField() {
		return this.field;
	}

}
