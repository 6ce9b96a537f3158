// com.github.jnr:jnr-a64asm: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module jnr.a64asm {
    exports jnr.a64asm;
}
