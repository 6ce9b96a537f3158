// com.github.jnr:jnr-x86asm: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module jnr.x86asm {
    exports com.kenai.jnr.x86asm;
    exports jnr.x86asm;
}
