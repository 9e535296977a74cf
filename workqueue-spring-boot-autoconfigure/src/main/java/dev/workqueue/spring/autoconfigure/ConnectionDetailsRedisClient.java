package dev.workqueue.spring.autoconfigure;

import java.util.List;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Makes a Lettuce client from Spring Boot's {@link DataRedisConnectionDetails}: the
 * {@code spring.data.redis.*} properties, or what {@code @ServiceConnection} and Docker
 * Compose support define. Used when the application has no
 * {@code LettuceConnectionFactory}; the caller owns and shuts down the client.
 * <p>
 * Sentinel, Cluster and standalone are chosen as Boot chooses them; master/replica needs
 * Spring Data Redis's connection factory.
 */
final class ConnectionDetailsRedisClient {

	private ConnectionDetailsRedisClient() {
	}

	/**
	 * Makes a client connecting where {@code details} say.
	 * @param details Boot's connection details
	 * @return a new client, not connected yet
	 * @throws IllegalStateException for a master/replica set-up, or details that give no
	 * connection
	 */
	static AbstractRedisClient create(DataRedisConnectionDetails details) {
		@Nullable SslOptions ssl = sslOptions(details.getSslBundle());
		if (details.getCluster() != null) {
			List<RedisURI> nodes = details.getCluster()
				.getNodes()
				.stream()
				.map((node) -> authenticated(RedisURI.Builder.redis(node.host(), node.port()), details, ssl))
				.toList();
			RedisClusterClient client = RedisClusterClient.create(nodes);
			if (ssl != null) {
				client.setOptions(ClusterClientOptions.builder().sslOptions(ssl).build());
			}
			return client;
		}
		if (details.getMasterReplica() != null) {
			throw new IllegalStateException("Work queues with backend redis do not connect to a master/replica set-up "
					+ "by themselves: define Spring Data Redis's LettuceConnectionFactory (spring-boot-starter-data-redis "
					+ "with spring.data.redis.client-type=lettuce)");
		}
		RedisClient client = RedisClient.create(authenticated(standaloneOrSentinel(details), details, ssl));
		if (ssl != null) {
			client.setOptions(ClientOptions.builder().sslOptions(ssl).build());
		}
		return client;
	}

	private static RedisURI.Builder standaloneOrSentinel(DataRedisConnectionDetails details) {
		DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
		if (sentinel == null) {
			DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
			if (standalone == null) {
				throw new IllegalStateException(details.getClass().getName()
						+ " gives no standalone, Sentinel or Cluster connection for the work queues");
			}
			return RedisURI.Builder.redis(standalone.getHost(), standalone.getPort())
				.withDatabase(standalone.getDatabase());
		}
		RedisURI.Builder uri = RedisURI.builder()
			.withSentinelMasterId(sentinel.getMaster())
			.withDatabase(sentinel.getDatabase());
		for (DataRedisConnectionDetails.Node node : sentinel.getNodes()) {
			RedisURI.Builder sentinelUri = RedisURI.Builder.redis(node.host(), node.port());
			if (sentinel.getPassword() != null) {
				sentinelUri = (sentinel.getUsername() != null)
						? sentinelUri.withAuthentication(sentinel.getUsername(), sentinel.getPassword())
						: sentinelUri.withPassword(sentinel.getPassword().toCharArray());
			}
			uri.withSentinel(sentinelUri.build());
		}
		return uri;
	}

	private static RedisURI authenticated(RedisURI.Builder uri, DataRedisConnectionDetails details,
			@Nullable SslOptions ssl) {
		String password = details.getPassword();
		if (password != null) {
			if (details.getUsername() != null) {
				uri.withAuthentication(details.getUsername(), password);
			}
			else {
				uri.withPassword(password.toCharArray());
			}
		}
		return uri.withSsl(ssl != null).build();
	}

	private static @Nullable SslOptions sslOptions(@Nullable SslBundle bundle) {
		if (bundle == null) {
			return null;
		}
		SslOptions.Builder ssl = SslOptions.builder()
			.jdkSslProvider()
			.keyManager(bundle.getManagers().getKeyManagerFactory())
			.trustManager(bundle.getManagers().getTrustManagerFactory());
		org.springframework.boot.ssl.SslOptions options = bundle.getOptions();
		if (options.getCiphers() != null) {
			ssl.cipherSuites(options.getCiphers());
		}
		if (options.getEnabledProtocols() != null) {
			ssl.protocols(options.getEnabledProtocols());
		}
		return ssl.build();
	}

}
