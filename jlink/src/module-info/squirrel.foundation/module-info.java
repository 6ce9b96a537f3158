// org.squirrelframework:squirrel-foundation: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module squirrel.foundation {
    // MVEL only for conditions and actions written as MVEL expressions (whenMvel, @Transit's when), which the
    // lifecycle never uses: StateMachineBuilderImpl makes an MvelScriptManagerImpl, whose code touches no MVEL
    // class until an expression is compiled. Static keeps an expression language that can call any Java method
    // out of the runtime image.
    requires static mvel2;
    requires org.apache.commons.lang3;
    requires org.slf4j;

    requires transitive com.google.common;
    // java.xml only for the XML state-machine importer/exporter, which the lifecycle never uses; static keeps
    // java.xml (and with it 5 MB) out of the runtime image.
    requires static transitive java.xml;

    exports org.squirrelframework.foundation.component;
    exports org.squirrelframework.foundation.component.impl;
    exports org.squirrelframework.foundation.event;
    exports org.squirrelframework.foundation.exception;
    exports org.squirrelframework.foundation.fsm;
    exports org.squirrelframework.foundation.fsm.annotation;
    exports org.squirrelframework.foundation.fsm.builder;
    exports org.squirrelframework.foundation.fsm.impl;
    exports org.squirrelframework.foundation.util;
}
