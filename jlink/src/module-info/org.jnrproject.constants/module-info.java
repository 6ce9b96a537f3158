// com.github.jnr:jnr-constants: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module org.jnrproject.constants {
    exports jnr.constants;
    exports jnr.constants.platform;
    exports jnr.constants.platform.aix;
    exports jnr.constants.platform.darwin;
    exports jnr.constants.platform.dragonflybsd;
    exports jnr.constants.platform.fake;
    exports jnr.constants.platform.freebsd;
    exports jnr.constants.platform.freebsd.aarch64;
    exports jnr.constants.platform.linux;
    exports jnr.constants.platform.linux.aarch64;
    exports jnr.constants.platform.linux.loongarch64;
    exports jnr.constants.platform.linux.mips64el;
    exports jnr.constants.platform.linux.powerpc64;
    exports jnr.constants.platform.linux.s390x;
    exports jnr.constants.platform.openbsd;
    exports jnr.constants.platform.solaris;
    exports jnr.constants.platform.windows;
}
