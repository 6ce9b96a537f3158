module com.squareup.javapoet {
    requires transitive java.compiler;

    exports com.squareup.javapoet;
}
