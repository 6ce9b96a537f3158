// com.squareup:javapoet: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module com.squareup.javapoet {
    requires transitive java.compiler;

    exports com.squareup.javapoet;
}
