/** The engine client's implementation: HTTP/1.1 over the Unix socket, JSON mapping, limits. */
package io.dogama.agent.docker.internal;
