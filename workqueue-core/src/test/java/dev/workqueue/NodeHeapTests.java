package dev.workqueue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link NodeHeap}, single-threaded: ready-time order, positions kept in the nodes, an
 * earlier time moving a node up in place, due at the ready time and not before, the array
 * given back only when the heap empties.
 */
class NodeHeapTests {

	private final NodeHeap<String> heap = new NodeHeap<>();

	private static Node<String> node(String item, long readyAtNanos) {
		Node<String> node = new Node<>(item, item.hashCode(), Node.WAITING);
		node.readyAtNanos = readyAtNanos;
		return node;
	}

	@Test
	void nodeIsDueAtItsReadyTimeAndNotBefore() {
		Node<String> a = node("a", 100);
		this.heap.insert(a);
		assertThat(a.isWaiting()).isTrue();
		assertThat(this.heap.head()).isSameAs(a);
		assertThat(this.heap.pollDue(99)).isNull();
		assertThat(this.heap.pollDue(100)).isSameAs(a);
		assertThat(a.isWaiting()).isFalse();
		assertThat(this.heap.pollDue(Long.MAX_VALUE)).isNull();
		assertThat(this.heap.head()).isNull();
	}

	@Test
	void lowerMovesANodeUpInPlace() {
		Node<String> a = node("a", 300);
		Node<String> b = node("b", 200);
		this.heap.insert(a);
		this.heap.insert(b);
		this.heap.lower(a, 100);
		assertThat(this.heap.size()).isEqualTo(2);
		assertThat(this.heap.pollDue(1000)).isSameAs(a);
		assertThat(this.heap.pollDue(1000)).isSameAs(b);
		assertThat(this.heap.pollDue(1000)).isNull();
	}

	@Test
	void removeTakesANodeOutFromAnywhereAndKeepsTheOrder() {
		List<Node<String>> nodes = new ArrayList<>();
		Random random = new Random(3);
		for (int i = 0; i < 1000; i++) {
			Node<String> node = node("item" + i, random.nextInt(10_000));
			nodes.add(node);
			this.heap.insert(node);
		}
		for (int i = 0; i < 1000; i += 3) {
			this.heap.remove(nodes.get(i));
			assertThat(nodes.get(i).isWaiting()).isFalse();
		}
		long previous = Long.MIN_VALUE;
		int out = 0;
		for (Node<String> node = this.heap.pollDue(Long.MAX_VALUE); node != null; node = this.heap
			.pollDue(Long.MAX_VALUE)) {
			assertThat(node.readyAtNanos).isGreaterThanOrEqualTo(previous);
			assertThat(nodes.indexOf(node) % 3).as("not removed").isNotZero();
			previous = node.readyAtNanos;
			out++;
		}
		assertThat(out).isEqualTo(1000 - 334);
	}

	@Test
	void randomTimesComeOutInReadyTimeOrderOncePerNode() {
		Random random = new Random(7);
		Map<String, Node<String>> nodes = new HashMap<>();
		for (int i = 0; i < 50_000; i++) {
			String item = "item" + random.nextInt(20_000);
			long readyAt = random.nextInt(1_000_000);
			Node<String> present = nodes.get(item);
			if (present == null) {
				Node<String> fresh = node(item, readyAt);
				nodes.put(item, fresh);
				this.heap.insert(fresh);
			}
			else if (readyAt < present.readyAtNanos) {
				this.heap.lower(present, readyAt);
			}
		}
		assertThat(this.heap.size()).isEqualTo(nodes.size());
		List<String> out = new ArrayList<>();
		long previous = Long.MIN_VALUE;
		for (long now = 0; now <= 1_000_000; now += 10_000) {
			for (Node<String> node = this.heap.pollDue(now); node != null; node = this.heap.pollDue(now)) {
				assertThat(node.readyAtNanos).isLessThanOrEqualTo(now).isGreaterThanOrEqualTo(previous);
				previous = node.readyAtNanos;
				out.add(node.item);
			}
		}
		assertThat(out).doesNotHaveDuplicates().hasSize(nodes.size());
		assertThat(this.heap.size()).isZero();
	}

	@Test
	void theArrayDoublesAndIsGivenBackOnlyWhenTheHeapEmpties() {
		List<Integer> capacities = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			this.heap.insert(node("item" + i, i));
			if (capacities.isEmpty() || capacities.get(capacities.size() - 1) != this.heap.capacity()) {
				capacities.add(this.heap.capacity());
			}
		}
		assertThat(capacities).containsExactly(16, 32, 64, 128, 256, 512, 1024);
		for (int i = 0; i < 999; i++) {
			this.heap.pollDue(Long.MAX_VALUE);
		}
		assertThat(this.heap.capacity()).as("one node waits").isEqualTo(1024);
		this.heap.pollDue(Long.MAX_VALUE);
		assertThat(this.heap.capacity()).isEqualTo(16);
	}

	@Test
	void clearHandsEveryNodeOverNoLongerWaiting() {
		this.heap.insert(node("a", 1));
		this.heap.insert(node("b", 2));
		List<Node<String>> dropped = new ArrayList<>();
		this.heap.clear(dropped::add);
		assertThat(dropped).extracting((node) -> node.item).containsExactlyInAnyOrder("a", "b");
		assertThat(dropped).noneMatch(Node::isWaiting);
		assertThat(this.heap.size()).isZero();
		assertThat(this.heap.pollDue(Long.MAX_VALUE)).isNull();
	}

}
