package io.dogama.agent.docker.internal;

import java.util.Map;
import java.util.Set;

/**
 * What of an engine answer is kept ({@link Tree#read}); everything else is skipped as it arrives and never built.
 * An answer may be megabytes an image's author chose (its labels, environment and volumes are in every inspect of
 * the image and of each container made from it): parsed whole, each byte took 15 to 20 bytes of heap, and a few such
 * answers at once ended the agent with an {@code OutOfMemoryError}. A value of another type than its shape expects
 * is kept whole, so that the view reading it still reports the wrong type.
 */
sealed interface Shape {
    /** The whole value. */
    Shape WHOLE = new Whole();

    /** @return an object's members named here, each read with its shape */
    static Shape fields(Map<String, Shape> fields) {
        return new Fields(Map.copyOf(fields));
    }

    /** @return an object's members named here, each whole, the others skipped (e.g. the agent's own labels) */
    static Shape members(Set<String> names) {
        return new Members(Set.copyOf(names));
    }

    /** @return an array's elements, each read with {@code each} */
    static Shape elements(Shape each) {
        return new Elements(each);
    }

    /** The whole value. */
    record Whole() implements Shape {
    }

    /** An object's named members, each with its own shape. */
    record Fields(Map<String, Shape> fields) implements Shape {
    }

    /** An object's named members, each whole. */
    record Members(Set<String> names) implements Shape {
    }

    /** An array's elements, each with one shape. */
    record Elements(Shape each) implements Shape {
    }
}
