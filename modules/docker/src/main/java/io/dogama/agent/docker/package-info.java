/** The only holder of the Docker socket: a bounded client with typed operations. */
package io.dogama.agent.docker;
