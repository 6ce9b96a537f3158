// org.mvel:mvel2: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module mvel2 {
    requires java.logging;

    // Only the JSR-223 adapter (org.mvel2.jsr223) uses javax.script; squirrel calls MVEL directly, so
    // the adapter is neither needed nor registered as a ScriptEngineFactory provider.
    requires static java.scripting;

    exports org.mvel2;
    exports org.mvel2.asm;
    exports org.mvel2.asm.signature;
    exports org.mvel2.ast;
    exports org.mvel2.compiler;
    exports org.mvel2.conversion;
    exports org.mvel2.debug;
    exports org.mvel2.integration;
    exports org.mvel2.integration.impl;
    exports org.mvel2.jsr223;
    exports org.mvel2.math;
    exports org.mvel2.optimizers;
    exports org.mvel2.optimizers.dynamic;
    exports org.mvel2.optimizers.impl.asm;
    exports org.mvel2.optimizers.impl.refl;
    exports org.mvel2.optimizers.impl.refl.collection;
    exports org.mvel2.optimizers.impl.refl.nodes;
    exports org.mvel2.sh;
    exports org.mvel2.sh.command.basic;
    exports org.mvel2.sh.command.file;
    exports org.mvel2.sh.text;
    exports org.mvel2.templates;
    exports org.mvel2.templates.res;
    exports org.mvel2.templates.util;
    exports org.mvel2.templates.util.io;
    exports org.mvel2.util;
}
