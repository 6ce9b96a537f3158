/** The HTTP surface: one route table behind one authentication filter. */
package io.dogama.agent.http;
