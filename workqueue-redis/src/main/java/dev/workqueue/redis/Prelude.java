package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code prelude.lua}, cut into its top-level definitions, so that each queue script
 * carries only the ones it uses: Redis runs the whole text of a script on every call, and
 * defining every function of the prelude cost about 6 µs of server time per call,
 * measured with {@code INFO commandstats}, as much as the commands of an add.
 * <p>
 * A definition is a line starting {@code local function name(} or {@code local name =} at
 * the left margin, with the comment lines just above it and every indented line (and the
 * closing {@code end}) after it. The leading comment, which states the keys, stays in
 * every script; the definitions a script uses, and those they use in turn, follow in the
 * prelude's order.
 */
final class Prelude {

	private static final Pattern DEFINITION = Pattern.compile("^local (?:function )?([A-Za-z_][A-Za-z0-9_]*)");

	private final String header;

	private final List<Definition> definitions;

	private Prelude(String header, List<Definition> definitions) {
		this.header = header;
		this.definitions = definitions;
	}

	/**
	 * Cuts a prelude into its definitions.
	 * @param text the prelude's text
	 * @return the prelude
	 */
	static Prelude parse(String text) {
		StringBuilder header = new StringBuilder();
		List<Definition> definitions = new ArrayList<>();
		StringBuilder pending = new StringBuilder();
		StringBuilder current = null;
		String name = null;
		for (String line : text.split("\n", -1)) {
			Matcher definition = DEFINITION.matcher(line);
			if (definition.find()) {
				if (current != null) {
					definitions.add(new Definition(name, current.toString()));
				}
				else {
					header.append(pending);
					pending.setLength(0);
				}
				current = new StringBuilder(pending).append(line).append('\n');
				pending.setLength(0);
				name = definition.group(1);
			}
			else if (current != null && (line.startsWith(" ") || line.startsWith("\t") || line.startsWith("end"))) {
				current.append(pending).append(line).append('\n');
				pending.setLength(0);
			}
			else {
				pending.append(line).append('\n');
			}
		}
		if (current != null) {
			definitions.add(new Definition(name, current.toString()));
		}
		return new Prelude(header.toString(), definitions);
	}

	/**
	 * Returns the prelude a script needs: the leading comment and the definitions
	 * {@code body} uses, directly or through others.
	 * @param body the script's own text
	 * @return the text to put in front of it
	 */
	String linkedTo(String body) {
		Set<Definition> needed = new LinkedHashSet<>();
		List<String> texts = new ArrayList<>(List.of(body));
		for (int i = 0; i < texts.size(); i++) {
			for (Definition definition : this.definitions) {
				if (!needed.contains(definition) && definition.usedIn(texts.get(i))) {
					needed.add(definition);
					texts.add(definition.text());
				}
			}
		}
		StringBuilder linked = new StringBuilder(this.header);
		for (Definition definition : this.definitions) {
			if (needed.contains(definition)) {
				linked.append(definition.text());
			}
		}
		return linked.toString();
	}

	/** The names the prelude defines, in its order. */
	List<String> names() {
		return this.definitions.stream().map(Definition::name).toList();
	}

	/**
	 * One top-level definition.
	 *
	 * @param name the name it defines
	 * @param text its text, with the comment above it
	 */
	private record Definition(String name, String text) {

		boolean usedIn(String code) {
			return Pattern.compile("(?<![A-Za-z0-9_])" + this.name + "(?![A-Za-z0-9_])")
				.matcher(code.replace(this.text, ""))
				.find();
		}

	}

}
