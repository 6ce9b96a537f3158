/** Implementation of the HTTP surface: request gate, route table, JSON bodies and views; never exported. */
package io.dogama.agent.http.internal;
