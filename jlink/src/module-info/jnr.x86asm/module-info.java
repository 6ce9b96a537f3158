module jnr.x86asm {
    exports com.kenai.jnr.x86asm;
    exports jnr.x86asm;
}
