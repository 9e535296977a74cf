/**
 * The engine written once for every shared store, and the driver interfaces a store
 * implements. Public SPI for store modules outside core: it may change before 1.0.
 */
package dev.workqueue.store;
