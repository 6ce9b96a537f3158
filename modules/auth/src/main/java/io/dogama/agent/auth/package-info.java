/** Request authentication: secret loading, HMAC-SHA-256 verification, replay defense. */
package io.dogama.agent.auth;
