package dev.workqueue.spring.autoconfigure;

import java.util.List;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link ConnectionDetailsRedisClient}: the client kind follows Boot's choice
 * of mode. Creating a client connects nothing.
 */
class ConnectionDetailsRedisClientTests {

	@Test
	void clusterDetailsGiveAClusterClient() {
		DataRedisConnectionDetails details = new DataRedisConnectionDetails() {

			@Override
			public Cluster getCluster() {
				return () -> List.of(new Node("127.0.0.1", 7000), new Node("127.0.0.1", 7001));
			}

		};
		assertThatShutsDown(ConnectionDetailsRedisClient.create(details), RedisClusterClient.class);
	}

	@Test
	void standaloneDetailsGiveAStandaloneClient() {
		DataRedisConnectionDetails details = new DataRedisConnectionDetails() {

			@Override
			public Standalone getStandalone() {
				return Standalone.of("127.0.0.1", 6379, 2);
			}

			@Override
			public String getPassword() {
				return "secret";
			}

		};
		assertThatShutsDown(ConnectionDetailsRedisClient.create(details), RedisClient.class);
	}

	@Test
	void masterReplicaDetailsAskForTheConnectionFactory() {
		DataRedisConnectionDetails details = new DataRedisConnectionDetails() {

			@Override
			public MasterReplica getMasterReplica() {
				return () -> List.of(new Node("127.0.0.1", 6379));
			}

		};
		assertThatIllegalStateException().isThrownBy(() -> ConnectionDetailsRedisClient.create(details))
			.withMessageContaining("LettuceConnectionFactory");
	}

	@Test
	void detailsWithoutAnyConnectionAreRejected() {
		assertThatIllegalStateException()
			.isThrownBy(() -> ConnectionDetailsRedisClient.create(new DataRedisConnectionDetails() {
			}))
			.withMessageContaining("gives no standalone, Sentinel or Cluster connection");
	}

	private static void assertThatShutsDown(AbstractRedisClient client, Class<?> type) {
		try {
			assertThat(client).isInstanceOf(type);
		}
		finally {
			client.shutdown();
		}
	}

}
