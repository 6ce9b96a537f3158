// org.apache.commons:commons-lang3: its own descriptor (META-INF/versions/9/module-info.class, which the jlink
// build removes), with one edit, commented.
module org.apache.commons.lang3 {
    // java.desktop only for java.beans types (EventListenerSupport, the event package) that squirrel never
    // uses; static keeps the module (about 10 MB) out of the runtime image.
    requires static java.desktop;

    exports org.apache.commons.lang3;
    exports org.apache.commons.lang3.arch;
    exports org.apache.commons.lang3.builder;
    exports org.apache.commons.lang3.compare;
    exports org.apache.commons.lang3.concurrent;
    exports org.apache.commons.lang3.concurrent.locks;
    exports org.apache.commons.lang3.event;
    exports org.apache.commons.lang3.exception;
    exports org.apache.commons.lang3.function;
    exports org.apache.commons.lang3.math;
    exports org.apache.commons.lang3.mutable;
    exports org.apache.commons.lang3.reflect;
    exports org.apache.commons.lang3.stream;
    exports org.apache.commons.lang3.text;
    exports org.apache.commons.lang3.text.translate;
    exports org.apache.commons.lang3.time;
    exports org.apache.commons.lang3.tuple;
    exports org.apache.commons.lang3.util;
}
