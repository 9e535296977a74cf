package dev.workqueue.spring.worker;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.context.ApplicationListener;

import dev.workqueue.spring.WorkItemGivenUpEvent;

/**
 * Collects the {@link WorkItemGivenUpEvent}s published in a test's context.
 */
class GivenUpEvents implements ApplicationListener<WorkItemGivenUpEvent> {

	final List<WorkItemGivenUpEvent> events = new CopyOnWriteArrayList<>();

	@Override
	public void onApplicationEvent(WorkItemGivenUpEvent event) {
		this.events.add(event);
	}

}
