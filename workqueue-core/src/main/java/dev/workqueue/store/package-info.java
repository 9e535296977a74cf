/**
 * The shared-store engine: the engine written once for every shared store, plus the
 * driver interfaces a store implements. Public SPI for store modules; it may change
 * before 1.0.
 */
package dev.workqueue.store;
