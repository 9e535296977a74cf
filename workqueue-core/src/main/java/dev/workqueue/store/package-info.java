/**
 * The engine written once for every shared store, plus the driver interfaces a store
 * implements: public SPI that may change before 1.0.
 */
package dev.workqueue.store;
