/** Public API of @kopf/engines: the engines plugged into the runtime (filled in module by module). */
export {};
