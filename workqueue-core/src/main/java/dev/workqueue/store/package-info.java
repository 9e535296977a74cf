/**
 * The shared-store engine: what a queue shared by several instances through a store
 * (Redis, PostgreSQL) does, written once for every shared store, and the driver
 * interfaces a store implements. The engine asks a store only what differs between
 * stores, such as how its consumers hear of items made ready elsewhere
 * ({@link dev.workqueue.store.StoreWakeups}); the waiting for ready items
 * ({@link dev.workqueue.store.ReadySignal}), the worker's poller
 * ({@link dev.workqueue.store.SharedPoller}) and the operations view of a shared queue
 * ({@link dev.workqueue.store.SharedQueue}) are the same for all.
 * <p>
 * Public SPI for store modules, in core or outside it; it may change before 1.0.
 * Applications use {@link dev.workqueue.store.SharedQueue} at most.
 */
package dev.workqueue.store;
