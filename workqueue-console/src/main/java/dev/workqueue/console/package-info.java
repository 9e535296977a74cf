/**
 * The work-queue console: a page and a JSON API, served by the application under
 * {@code workqueue.console.path}, that show the queues and their items and act on them.
 */
@NullMarked
package dev.workqueue.console;

import org.jspecify.annotations.NullMarked;
