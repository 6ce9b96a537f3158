/**
 * The Java client of the DoGaMa agent. Create and start the demo instance:
 *
 * <pre>{@code
 * DogamaClient agent = DogamaClient.builder().uri(URI.create("http://127.0.0.1:8480"))
 *         .secretFile(Path.of(".dev/secrets/dogama-agent-hmac")).build();
 * Plan plan = Plan.fromJson(Files.readString(Path.of("demo-1.json")));
 * agent.create(plan);
 * Instance running = agent.start("demo-1");
 * }</pre>
 *
 * <p>Entry point: {@link io.dogama.agent.client.DogamaClient}. Errors: {@link io.dogama.agent.client.DogamaProblemException}
 * carrying a sealed {@link io.dogama.agent.client.Problem} (its code, and for {@code plan_rejected} every
 * {@link io.dogama.agent.client.Violation}); no answer: {@link io.dogama.agent.client.DogamaTransportException},
 * never retried for a mutation. Signing for another HTTP stack: {@link io.dogama.agent.client.RequestSigner}.
 * The API is described in {@code docs/openapi.yaml}.
 */
package io.dogama.agent.client;
