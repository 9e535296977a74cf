/**
 * Support for the tests of applications using workqueue: {@link dev.workqueue.test.Idle}
 * waits until queues have nothing ready, processing or waiting.
 */
package dev.workqueue.test;
