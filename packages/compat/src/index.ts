/** Public API of @kopf/compat (private): the Python Kopf compatibility suite's tooling. */
export * as OnClusterState from "./OnClusterState.ts";
export * as PythonKopf from "./PythonKopf.ts";
