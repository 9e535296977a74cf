package dev.workqueue.redis;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a chunk compiled by Redis's Lua 5.1 ({@code string.dump(loadstring(text))}) reads
 * from outside itself: the names of its global reads and writes, in every nested
 * function, and the locals its main function declares. Lua's own compiler decides what is
 * a global, so a helper a script uses without including it shows up here as a global
 * read, on whatever path of the script it sits.
 * <p>
 * The dump is Lua 5.1's: a header giving the sizes of {@code int}, {@code size_t}, an
 * instruction and a number, then the main function, each function being its source name,
 * line range, counts, code, constants, nested functions and debug information (lines,
 * locals with their pc range, upvalue names). {@code GETGLOBAL} (opcode 5) and
 * {@code SETGLOBAL} (7) name their global by the constant at their Bx field.
 *
 * @param globals the global names read or written, in the order met
 * @param locals the names of the main function's locals
 */
record LuaBytecode(Set<String> globals, Set<String> locals) {

	private static final int GETGLOBAL = 5;

	private static final int SETGLOBAL = 7;

	static LuaBytecode parse(byte[] dump) {
		Reader reader = new Reader(ByteBuffer.wrap(dump));
		Set<String> globals = new LinkedHashSet<>();
		Set<String> locals = new LinkedHashSet<>();
		reader.function(globals, locals);
		return new LuaBytecode(globals, locals);
	}

	private static final class Reader {

		private final ByteBuffer in;

		private final int sizeOfInt;

		private final int sizeOfSizeT;

		private final int sizeOfNumber;

		Reader(ByteBuffer in) {
			this.in = in;
			byte[] signature = new byte[4];
			in.get(signature);
			if (signature[0] != 0x1b || !new String(signature, 1, 3, StandardCharsets.US_ASCII).equals("Lua")
					|| in.get() != 0x51) {
				throw new IllegalArgumentException("not a Lua 5.1 dump");
			}
			in.get(); // format
			in.order((in.get() == 1) ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
			this.sizeOfInt = in.get();
			this.sizeOfSizeT = in.get();
			if (in.get() != 4) {
				throw new IllegalArgumentException("instructions of another size than 4 bytes");
			}
			this.sizeOfNumber = in.get();
			in.get(); // integral numbers
		}

		/** Reads a function; adds its globals and those of its nested functions. */
		void function(Set<String> globals, Set<String> locals) {
			string(); // source
			integer(); // first line
			integer(); // last line
			this.in.position(this.in.position() + 4); // upvalues, parameters, vararg,
														// stack size
			int[] code = new int[integer()];
			for (int i = 0; i < code.length; i++) {
				code[i] = this.in.getInt();
			}
			List<String> constants = constants();
			for (int instruction : code) {
				int opcode = instruction & 0x3f;
				if (opcode == GETGLOBAL || opcode == SETGLOBAL) {
					globals.add(constants.get(instruction >>> 14));
				}
			}
			int nested = integer();
			for (int i = 0; i < nested; i++) {
				function(globals, new LinkedHashSet<>());
			}
			skip(integer() * this.sizeOfInt); // line of each instruction
			int declared = integer();
			for (int i = 0; i < declared; i++) {
				locals.add(string());
				integer(); // first pc
				integer(); // last pc
			}
			int upvalues = integer();
			for (int i = 0; i < upvalues; i++) {
				string();
			}
		}

		/** The constants, strings as they are and the others as {@code null}. */
		private List<String> constants() {
			int count = integer();
			List<String> constants = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				int type = this.in.get();
				switch (type) {
					case 0 -> constants.add(null);
					case 1 -> {
						this.in.get();
						constants.add(null);
					}
					case 3 -> {
						skip(this.sizeOfNumber);
						constants.add(null);
					}
					case 4 -> constants.add(string());
					default -> throw new IllegalArgumentException("constant of type " + type);
				}
			}
			return constants;
		}

		/** A string: its length with the closing NUL (0 for none), then its bytes. */
		private String string() {
			long length = (this.sizeOfSizeT == 8) ? this.in.getLong() : integer();
			if (length == 0) {
				return null;
			}
			byte[] bytes = new byte[(int) length];
			this.in.get(bytes);
			return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
		}

		private int integer() {
			if (this.sizeOfInt != 4) {
				throw new IllegalArgumentException("int of " + this.sizeOfInt + " bytes");
			}
			return this.in.getInt();
		}

		private void skip(int bytes) {
			this.in.position(this.in.position() + bytes);
		}

	}

}
