package dev.workqueue.console;

/**
 * The body of a refused request of the console's JSON API.
 *
 * @param error what was wrong, naming the parameter or property concerned
 */
record ConsoleError(String error) {

}
