/**
 * workqueue's queues on PostgreSQL, shared by every instance of an application, kept
 * across restarts, and able to take part in the application's own transactions:
 * {@link dev.workqueue.postgres.PostgresWorkQueues} builds them and writes their schema.
 * <p>
 * <b>How it works.</b> A queue is the rows of one table whose {@code queue} column holds
 * its name, one row per item from its first add to the done that finishes it (see
 * {@code schema.sql} beside this package for the columns and indexes). Each change of an
 * item's state is one statement: an add is an upsert whose conflict clause applies
 * client-go's rules, a claim locks ready rows with {@code FOR UPDATE SKIP LOCKED} and
 * leases them under fencing tokens from a sequence (each lease a row of the
 * {@code _lease} table, which applications never lock, renewed there), a done deletes the
 * row or queues it again when it was added meanwhile. Consumers wait for {@code NOTIFY},
 * heard on one {@code LISTEN} connection per database in each JVM, or poll where that
 * cannot work.
 */
package dev.workqueue.postgres;
