module org.jnrproject.jffi.nativelibs {
}
