module jnr.a64asm {
    exports jnr.a64asm;
}
