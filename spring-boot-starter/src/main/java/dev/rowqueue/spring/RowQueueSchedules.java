package dev.rowqueue.spring;

import dev.rowqueue.MissedSlots;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.Schedules;
import org.springframework.beans.factory.SmartInitializingSingleton;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Defines the {@link ScheduleDefinition} beans and the {@code rowqueue.schedules.<name>.*} schedules once every
 * singleton exists (creating their work queues, with the configured options, where missing), and starts the
 * scheduler when {@code rowqueue.scheduler.enabled} is {@code true}, or unset and there is any schedule to define.
 * The scheduler stops when the {@link dev.rowqueue.RowQueues} bean closes with the context.
 */
public class RowQueueSchedules implements SmartInitializingSingleton {

    private final ConfiguredQueues queues;
    private final List<ScheduleDefinition> definitions;
    private final RowQueueProperties properties;
    private volatile List<ScheduleDefinition> defined = List.of();

    /**
     * @param queues      the queues (and the RowQueues) of the application
     * @param definitions the schedule beans
     * @param properties  {@code rowqueue.*}
     */
    public RowQueueSchedules(ConfiguredQueues queues, List<ScheduleDefinition> definitions,
                             RowQueueProperties properties) {
        this.queues = queues;
        this.definitions = List.copyOf(definitions);
        this.properties = properties;
    }

    /** @return the schedules of properties and beans, properties first */
    public List<ScheduleDefinition> definitions() {
        List<ScheduleDefinition> all = new ArrayList<>();
        for (Map.Entry<String, RowQueueProperties.ScheduleEntry> e : properties.getSchedules().entrySet()) {
            RowQueueProperties.ScheduleEntry p = e.getValue();
            if (p.getSchedule() == null || p.getQueue() == null) {
                throw new IllegalArgumentException("rowqueue.schedules." + e.getKey() + " needs .schedule and .queue");
            }
            ScheduleOptions o = ScheduleOptions.forQueue(p.getQueue());
            if (p.getPayload() != null) {
                o = o.withPayload(p.getPayload());
            }
            if (p.getKey() != null) {
                o = o.withKey(p.getKey());
            }
            if (p.getZone() != null) {
                o = o.withZone(p.getZone());
            }
            if (p.getMissed() != null) {
                o = o.withMissed(MissedSlots.parse(p.getMissed()));
            }
            all.add(new ScheduleDefinition(e.getKey(), p.getSchedule(), o, p.isReplace()));
        }
        all.addAll(definitions);
        return all;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<ScheduleDefinition> all = definitions();
        Boolean enabled = properties.getScheduler().getEnabled();
        if (all.isEmpty() && !Boolean.TRUE.equals(enabled)) {
            return;
        }
        Schedules schedules = queues.rowQueues().schedules(); // defines and lists: fires nothing by itself
        for (ScheduleDefinition d : all) {
            queues.workQueue(d.options().queue()).create(); // a schedule needs its queue; only producers create
            if (d.replace()) {
                schedules.replace(d.name(), d.spec(), d.options());
            } else {
                schedules.define(d.name(), d.spec(), d.options());
            }
        }
        defined = all;
        if (!Boolean.FALSE.equals(enabled)) {
            schedules.startScheduler(); // after the definitions: this node fires them (and every other node's)
        }
    }

    /** @return what was defined at startup */
    public List<ScheduleDefinition> defined() {
        return defined;
    }
}
