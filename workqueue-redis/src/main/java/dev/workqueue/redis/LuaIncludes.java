package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves the {@code -- @include name} lines of the Lua scripts, much as a C
 * preprocessor with include guards does with every {@code #include} at the top of its
 * file: a file's resolved text is, first, the resolved text of each include it names that
 * is not in the output yet, in the order it names them, then its own text as it is. So
 * each include is inlined once, after everything it includes and before everything that
 * includes it; every file's text appears whole and in order (its {@code @include} lines
 * stay, as comments); and a script carries exactly the includes it reaches, which is what
 * keeps its server time down (Redis runs the whole text of a script, each
 * {@code local function} a closure made, on every call). Nothing is inferred from a
 * script's code.
 * <p>
 * An include line is exactly {@code -- @include } and a name of lower-case letters,
 * digits and underscores, anywhere in a file; any other line that looks like one (dashes,
 * then {@code @include}) is rejected, as are an unknown name and a cycle, each with the
 * chain of files that led to it. Not thread-safe: {@link LuaScript} uses one during its
 * class initialisation, so a bad include fails the first use of any script.
 */
final class LuaIncludes {

	private static final Pattern DIRECTIVE = Pattern.compile("^-+\\s*@include.*$", Pattern.MULTILINE);

	private static final Pattern INCLUDE = Pattern.compile("-- @include ([a-z0-9_]+)");

	private final Function<String, String> reader;

	private final Map<String, String> texts = new HashMap<>();

	/**
	 * Creates a resolver.
	 * @param reader the text of the include of a name, or {@code null} if there is none
	 */
	LuaIncludes(Function<String, String> reader) {
		this.reader = reader;
	}

	/**
	 * Resolves a script.
	 * @param name the script's name, for messages
	 * @param text its text
	 * @return the text of its includes, then its own
	 * @throws IllegalStateException if an include line is malformed, names no include, or
	 * closes a cycle
	 */
	String resolve(String name, String text) {
		StringBuilder resolved = new StringBuilder();
		Set<String> inlined = new HashSet<>();
		List<String> chain = new ArrayList<>(List.of(name));
		for (String include : includes(name, text)) {
			inline(include, chain, inlined, resolved);
		}
		return resolved.append(text).toString();
	}

	private void inline(String name, List<String> chain, Set<String> inlined, StringBuilder resolved) {
		if (inlined.contains(name)) {
			return;
		}
		if (chain.contains(name)) {
			throw new IllegalStateException("Lua include cycle: " + String.join(" -> ", chain) + " -> " + name);
		}
		String text = text(name, chain);
		chain.add(name);
		for (String include : includes(name, text)) {
			inline(include, chain, inlined, resolved);
		}
		chain.remove(chain.size() - 1);
		inlined.add(name);
		resolved.append(text);
		if (!text.endsWith("\n")) {
			resolved.append('\n');
		}
	}

	private String text(String name, List<String> chain) {
		String text = this.texts.computeIfAbsent(name, this.reader);
		if (text == null) {
			throw new IllegalStateException("Unknown Lua include '" + name + "' in " + String.join(" -> ", chain));
		}
		return text;
	}

	/**
	 * The includes a file names, in its order.
	 * @param name the file's name, for messages
	 * @param text its text
	 * @return the names
	 * @throws IllegalStateException if an include line is malformed
	 */
	static List<String> includes(String name, String text) {
		List<String> names = new ArrayList<>();
		Matcher directive = DIRECTIVE.matcher(text);
		while (directive.find()) {
			Matcher include = INCLUDE.matcher(directive.group().stripTrailing());
			if (!include.matches()) {
				throw new IllegalStateException("Malformed Lua include line in " + name + ": '" + directive.group()
						+ "' (expected '-- @include name', the name of lower-case letters, digits and underscores)");
			}
			names.add(include.group(1));
		}
		return names;
	}

}
