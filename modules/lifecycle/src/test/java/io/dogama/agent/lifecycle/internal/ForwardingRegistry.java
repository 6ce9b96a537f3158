package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.util.List;

/** The real registry, every call passed on: tests override the reads they count or damage. */
abstract class ForwardingRegistry implements Registry {
    protected final Registry real;

    ForwardingRegistry(Registry real) {
        this.real = real;
    }

    @Override
    public Lookup get(String instanceId) throws RegistryException {
        return real.get(instanceId);
    }

    @Override
    public List<Lookup> all() throws RegistryException {
        return real.all();
    }

    @Override
    public CasResult insert(InstanceRecord record) throws RegistryException {
        return real.insert(record);
    }

    @Override
    public CasResult replace(long expectedGeneration, InstanceRecord next) throws RegistryException {
        return real.replace(expectedGeneration, next);
    }

    @Override
    public CasResult remove(String instanceId, long expectedGeneration) throws RegistryException {
        return real.remove(instanceId, expectedGeneration);
    }

    @Override
    public int maxInstances() {
        return real.maxInstances();
    }

    @Override
    public void close() {
        // the harness closes the real one
    }
}
