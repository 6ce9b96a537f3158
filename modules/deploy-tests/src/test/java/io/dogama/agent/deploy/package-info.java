/** End-to-end tests of the container image, the agent running in it, and deploy/compose.yaml. */
package io.dogama.agent.deploy;
