/**
 * Kopf's example 06: peering. The handler does nothing; what matters is what happens when several
 * operators with these handlers run against one cluster: they see each other through the
 * `KopfPeering` object and only the one with the highest priority handles objects.
 */
import * as kopf from "kopf";

kopf.on.create("kopfexamples", function create_fn() {});
