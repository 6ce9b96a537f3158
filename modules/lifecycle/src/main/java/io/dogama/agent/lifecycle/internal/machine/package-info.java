/**
 * The one class squirrel-foundation instantiates and reflects on: this package alone is opened to
 * it, so that squirrel's reflection reaches nothing of the lifecycle but an empty machine class.
 * Never exported.
 */
package io.dogama.agent.lifecycle.internal.machine;
