package dev.workqueue.benchmarks;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import org.openjdk.jol.util.ObjectUtils;
import org.openjdk.jol.vm.VM;
import org.openjdk.jol.vm.VirtualMachine;

/**
 * The heap footprint of everything reachable from one object, sized with JOL, stopping at
 * threads, thread groups, class loaders and classes.
 * <p>
 * JOL's own {@code GraphLayout} follows a structure's worker thread into its thread
 * group, every other thread, the class loaders and every class: the whole JVM, which both
 * drowns the structure and changes while it is walked. The structures measured here are
 * reached from outside only through their own fields, so this walk stops at those shared
 * runtime objects (counting none of them) and sizes the rest: each object once, by
 * identity, with {@link VirtualMachine#sizeOf(Object)}, following every non-static
 * reference field and reference array element. Fields are read through JOL, which reads
 * private fields of JDK classes without {@code --add-opens}.
 */
final class Footprint {

	private static final VirtualMachine VM_LAYOUT = VM.current();

	private static final ClassValue<Field[]> REFERENCE_FIELDS = new ClassValue<>() {

		@Override
		protected Field[] computeValue(Class<?> type) {
			List<Field> fields = new ArrayList<>();
			for (Class<?> c = type; c != null; c = c.getSuperclass()) {
				for (Field field : c.getDeclaredFields()) {
					if (!Modifier.isStatic(field.getModifiers()) && !field.getType().isPrimitive()) {
						fields.add(field);
					}
				}
			}
			return fields.toArray(new Field[0]);
		}

	};

	private Footprint() {
	}

	/**
	 * Returns the bytes of every object reachable from {@code root}, root included, up to
	 * the shared runtime objects named in the class description.
	 * @param root where to start
	 * @return the footprint in bytes
	 */
	static long bytes(Object root) {
		Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		Deque<Object> pending = new ArrayDeque<>();
		pending.push(root);
		seen.add(root);
		long total = 0;
		while (!pending.isEmpty()) {
			Object object = pending.pop();
			total += VM_LAYOUT.sizeOf(object);
			Class<?> type = object.getClass();
			if (type.isArray()) {
				if (!type.getComponentType().isPrimitive()) {
					for (Object element : (Object[]) object) {
						visit(element, seen, pending);
					}
				}
				continue;
			}
			for (Field field : REFERENCE_FIELDS.get(type)) {
				visit(ObjectUtils.value(object, field), seen, pending);
			}
		}
		return total;
	}

	private static void visit(Object object, Set<Object> seen, Deque<Object> pending) {
		if (object != null && !isShared(object) && seen.add(object)) {
			pending.push(object);
		}
	}

	private static boolean isShared(Object object) {
		return object instanceof Thread || object instanceof ThreadGroup || object instanceof ClassLoader
				|| object instanceof Class;
	}

}
