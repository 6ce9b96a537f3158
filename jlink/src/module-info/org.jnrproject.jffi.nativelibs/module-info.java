// com.github.jnr:jffi:native: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
// No package: the jar holds only jni/<arch>-<os>/libjffi-*.so, which org.jnrproject.jffi reads as class
// loader resources (not encapsulated, the directory names are no package names). It is in the module
// graph because org.jnrproject.jffi requires it.
module org.jnrproject.jffi.nativelibs {
}
