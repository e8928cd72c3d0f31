/**
 * The protobuf wire schema of the built-in kinds kubectl's typed commands send
 * (`application/vnd.kubernetes.protobuf`), generated from the `generated.proto` files and Go JSON
 * tags of k8s.io/api (10b39a39bcee) and k8s.io/apimachinery (eed236ceee2c). One entry per message:
 * `"<number> <jsonName><flag> <type>;..."`. Flags: `?` Go's JSON encoding omits the zero value,
 * `*` the field is inlined into its parent. Types: string, bool, int32, int64, double, float, bytes;
 * time, microtime, duration, rawjson, intorstring, quantity; `group.Message`; `[]T`; `map:T`.
 */

/** The message type of each `apiVersion/kind` a protobuf body may carry. */
export const kinds: Readonly<Record<string, string>> = {
  "v1/Namespace": "core.Namespace",
  "v1/ConfigMap": "core.ConfigMap",
  "v1/Secret": "core.Secret",
  "v1/ServiceAccount": "core.ServiceAccount",
  "v1/Service": "core.Service",
  "v1/Pod": "core.Pod",
  "v1/Event": "core.Event",
  "apps/v1/Deployment": "apps.Deployment",
  "coordination.k8s.io/v1/Lease": "coordination.Lease",
  "events.k8s.io/v1/Event": "events.Event",
  "autoscaling/v1/Scale": "autoscaling.Scale",
  "meta.k8s.io/v1/DeleteOptions": "meta.DeleteOptions",
  "v1/DeleteOptions": "meta.DeleteOptions",
  "policy/v1/Eviction": "policy.Eviction",
};

/** Every message reachable from {@link kinds}. */
export const messages: Readonly<Record<string, string>> = {
  "apps.Deployment":
    "1 metadata? meta.ObjectMeta;2 spec? apps.DeploymentSpec;3 status? apps.DeploymentStatus",
  "apps.DeploymentCondition":
    "1 type string;2 status string;4 reason? string;5 message? string;6 lastUpdateTime? time;7 lastTransitionTime? time",
  "apps.DeploymentSpec":
    "1 replicas int32;2 selector meta.LabelSelector;3 template core.PodTemplateSpec;4 strategy? apps.DeploymentStrategy;5 minReadySeconds? int32;6 revisionHistoryLimit int32;7 paused? bool;9 progressDeadlineSeconds int32",
  "apps.DeploymentStatus":
    "1 observedGeneration? int64;2 replicas? int32;3 updatedReplicas? int32;4 availableReplicas? int32;5 unavailableReplicas? int32;6 conditions? []apps.DeploymentCondition;7 readyReplicas? int32;8 collisionCount int32;9 terminatingReplicas int32",
  "apps.DeploymentStrategy": "1 type? string;2 rollingUpdate apps.RollingUpdateDeployment",
  "apps.RollingUpdateDeployment": "1 maxUnavailable intorstring;2 maxSurge intorstring",
  "autoscaling.Scale":
    "1 metadata? meta.ObjectMeta;2 spec? autoscaling.ScaleSpec;3 status? autoscaling.ScaleStatus",
  "autoscaling.ScaleSpec": "1 replicas? int32",
  "autoscaling.ScaleStatus": "1 replicas int32;2 selector? string",
  "coordination.Lease": "1 metadata? meta.ObjectMeta;2 spec? coordination.LeaseSpec",
  "coordination.LeaseSpec":
    "1 holderIdentity string;2 leaseDurationSeconds int32;3 acquireTime microtime;4 renewTime microtime;5 leaseTransitions int32;6 strategy string;7 preferredHolder string",
  "core.AWSElasticBlockStoreVolumeSource":
    "1 volumeID string;2 fsType? string;3 partition? int32;4 readOnly? bool",
  "core.Affinity":
    "1 nodeAffinity core.NodeAffinity;2 podAffinity core.PodAffinity;3 podAntiAffinity core.PodAntiAffinity",
  "core.AppArmorProfile": "1 type string;2 localhostProfile string",
  "core.AzureDiskVolumeSource":
    "1 diskName string;2 diskURI string;3 cachingMode string;4 fsType string;5 readOnly bool;6 kind string",
  "core.AzureFileVolumeSource": "1 secretName string;2 shareName string;3 readOnly? bool",
  "core.CSIVolumeSource":
    "1 driver string;2 readOnly bool;3 fsType string;4 volumeAttributes? map:string;5 nodePublishSecretRef core.LocalObjectReference",
  "core.Capabilities": "1 add? []string;2 drop? []string",
  "core.CephFSVolumeSource":
    "1 monitors []string;2 path? string;3 user? string;4 secretFile? string;5 secretRef core.LocalObjectReference;6 readOnly? bool",
  "core.CinderVolumeSource":
    "1 volumeID string;2 fsType? string;3 readOnly? bool;4 secretRef core.LocalObjectReference",
  "core.ClientIPConfig": "1 timeoutSeconds int32",
  "core.ClusterTrustBundleProjection":
    "1 name string;2 signerName string;3 labelSelector meta.LabelSelector;4 path string;5 optional bool;6 user int64",
  "core.ConfigMap": "1 metadata? meta.ObjectMeta;2 data? map:string;3 binaryData? map:bytes;4 immutable bool",
  "core.ConfigMapEnvSource": "1 localObjectReference* core.LocalObjectReference;2 optional bool",
  "core.ConfigMapKeySelector":
    "1 localObjectReference* core.LocalObjectReference;2 key string;3 optional bool",
  "core.ConfigMapProjection":
    "1 localObjectReference* core.LocalObjectReference;2 items? []core.KeyToPath;4 optional bool",
  "core.ConfigMapVolumeSource":
    "1 localObjectReference* core.LocalObjectReference;2 items? []core.KeyToPath;3 defaultMode int32;4 optional bool;5 defaultUser int64",
  "core.Container":
    "1 name string;2 image? string;3 command? []string;4 args? []string;5 workingDir? string;6 ports? []core.ContainerPort;7 env? []core.EnvVar;8 resources? core.ResourceRequirements;9 volumeMounts? []core.VolumeMount;10 livenessProbe core.Probe;11 readinessProbe core.Probe;12 lifecycle core.Lifecycle;13 terminationMessagePath? string;14 imagePullPolicy? string;15 securityContext core.SecurityContext;16 stdin? bool;17 stdinOnce? bool;18 tty? bool;19 envFrom? []core.EnvFromSource;20 terminationMessagePolicy? string;21 volumeDevices? []core.VolumeDevice;22 startupProbe core.Probe;23 resizePolicy? []core.ContainerResizePolicy;24 restartPolicy string;25 restartPolicyRules? []core.ContainerRestartRule",
  "core.ContainerExtendedResourceRequest":
    "1 containerName string;2 resourceName string;3 requestName string",
  "core.ContainerPort":
    "1 name? string;2 hostPort? int32;3 containerPort int32;4 protocol? string;5 hostIP? string",
  "core.ContainerResizePolicy": "1 resourceName string;2 restartPolicy string",
  "core.ContainerRestartRule": "1 action? string;2 exitCodes core.ContainerRestartRuleOnExitCodes",
  "core.ContainerRestartRuleOnExitCodes": "1 operator? string;2 values? []int32",
  "core.ContainerState":
    "1 waiting core.ContainerStateWaiting;2 running core.ContainerStateRunning;3 terminated core.ContainerStateTerminated",
  "core.ContainerStateRunning": "1 startedAt? time",
  "core.ContainerStateTerminated":
    "1 exitCode int32;2 signal? int32;3 reason? string;4 message? string;5 startedAt? time;6 finishedAt? time;7 containerID? string",
  "core.ContainerStateWaiting": "1 reason? string;2 message? string",
  "core.ContainerStatus":
    "1 name string;2 state? core.ContainerState;3 lastState? core.ContainerState;4 ready bool;5 restartCount int32;6 image string;7 imageID string;8 containerID? string;9 started bool;10 allocatedResources? map:quantity;11 resources core.ResourceRequirements;12 volumeMounts? []core.VolumeMountStatus;13 user core.ContainerUser;14 allocatedResourcesStatus? []core.ResourceStatus;15 stopSignal string",
  "core.ContainerUser": "1 linux core.LinuxContainerUser",
  "core.DownwardAPIProjection": "1 items? []core.DownwardAPIVolumeFile",
  "core.DownwardAPIVolumeFile":
    "1 path string;2 fieldRef core.ObjectFieldSelector;3 resourceFieldRef core.ResourceFieldSelector;4 mode int32;5 user int64",
  "core.DownwardAPIVolumeSource":
    "1 items? []core.DownwardAPIVolumeFile;2 defaultMode int32;3 defaultUser int64",
  "core.EmptyDirVolumeSource": "1 medium? string;2 sizeLimit quantity;3 mode int32",
  "core.EnvFromSource":
    "1 prefix? string;2 configMapRef core.ConfigMapEnvSource;3 secretRef core.SecretEnvSource",
  "core.EnvVar": "1 name string;2 value? string;3 valueFrom core.EnvVarSource",
  "core.EnvVarSource":
    "1 fieldRef core.ObjectFieldSelector;2 resourceFieldRef core.ResourceFieldSelector;3 configMapKeyRef core.ConfigMapKeySelector;4 secretKeyRef core.SecretKeySelector;5 fileKeyRef core.FileKeySelector",
  "core.EphemeralContainer":
    "1 ephemeralContainerCommon* core.EphemeralContainerCommon;2 targetContainerName? string",
  "core.EphemeralContainerCommon":
    "1 name string;2 image? string;3 command? []string;4 args? []string;5 workingDir? string;6 ports? []core.ContainerPort;7 env? []core.EnvVar;8 resources? core.ResourceRequirements;9 volumeMounts? []core.VolumeMount;10 livenessProbe core.Probe;11 readinessProbe core.Probe;12 lifecycle core.Lifecycle;13 terminationMessagePath? string;14 imagePullPolicy? string;15 securityContext core.SecurityContext;16 stdin? bool;17 stdinOnce? bool;18 tty? bool;19 envFrom? []core.EnvFromSource;20 terminationMessagePolicy? string;21 volumeDevices? []core.VolumeDevice;22 startupProbe core.Probe;23 resizePolicy? []core.ContainerResizePolicy;24 restartPolicy string;25 restartPolicyRules? []core.ContainerRestartRule",
  "core.EphemeralVolumeSource": "1 volumeClaimTemplate core.PersistentVolumeClaimTemplate",
  "core.Event":
    "1 metadata meta.ObjectMeta;2 involvedObject core.ObjectReference;3 reason? string;4 message? string;5 source? core.EventSource;6 firstTimestamp? time;7 lastTimestamp? time;8 count? int32;9 type? string;10 eventTime? microtime;11 series core.EventSeries;12 action? string;13 related core.ObjectReference;14 reportingComponent string;15 reportingInstance string",
  "core.EventSeries": "1 count? int32;2 lastObservedTime? microtime",
  "core.EventSource": "1 component? string;2 host? string",
  "core.EvictionResponder": "1 name string;2 priority int32",
  "core.ExecAction": "1 command? []string",
  "core.FCVolumeSource":
    "1 targetWWNs? []string;2 lun int32;3 fsType? string;4 readOnly? bool;5 wwids? []string",
  "core.FileKeySelector": "1 volumeName string;2 path string;3 key string;4 optional bool",
  "core.FlexVolumeSource":
    "1 driver string;2 fsType? string;3 secretRef core.LocalObjectReference;4 readOnly? bool;5 options? map:string",
  "core.FlockerVolumeSource": "1 datasetName? string;2 datasetUUID? string",
  "core.GCEPersistentDiskVolumeSource":
    "1 pdName string;2 fsType? string;3 partition? int32;4 readOnly? bool",
  "core.GRPCAction": "1 port int32;2 service string;3 mode string",
  "core.GitRepoVolumeSource": "1 repository string;2 revision? string;3 directory? string",
  "core.GlusterfsVolumeSource": "1 endpoints string;2 path string;3 readOnly? bool",
  "core.HTTPGetAction":
    "1 path? string;2 port intorstring;3 host? string;4 scheme? string;5 httpHeaders? []core.HTTPHeader;6 protocol string",
  "core.HTTPHeader": "1 name string;2 value string",
  "core.HostAlias": "1 ip string;2 hostnames? []string",
  "core.HostIP": "1 ip string",
  "core.HostPathVolumeSource": "1 path string;2 type string",
  "core.ISCSIVolumeSource":
    "1 targetPortal string;2 iqn string;3 lun int32;4 iscsiInterface? string;5 fsType? string;6 readOnly? bool;7 portals? []string;8 chapAuthDiscovery? bool;10 secretRef core.LocalObjectReference;11 chapAuthSession? bool;12 initiatorName string",
  "core.ImageVolumeSource": "1 reference? string;2 pullPolicy? string",
  "core.ImageVolumeStatus": "1 imageRef? string",
  "core.KeyToPath": "1 key string;2 path string;3 mode int32;4 user int64",
  "core.Lifecycle": "1 postStart core.LifecycleHandler;2 preStop core.LifecycleHandler;3 stopSignal string",
  "core.LifecycleHandler":
    "1 exec core.ExecAction;2 httpGet core.HTTPGetAction;3 tcpSocket core.TCPSocketAction;4 sleep core.SleepAction",
  "core.LinuxContainerUser": "1 uid int64;2 gid int64;3 supplementalGroups? []int64",
  "core.LoadBalancerIngress": "1 ip? string;2 hostname? string;3 ipMode string;4 ports? []core.PortStatus",
  "core.LoadBalancerStatus": "1 ingress? []core.LoadBalancerIngress",
  "core.LocalObjectReference": "1 name? string",
  "core.NFSVolumeSource": "1 server string;2 path string;3 readOnly? bool",
  "core.Namespace": "1 metadata? meta.ObjectMeta;2 spec? core.NamespaceSpec;3 status? core.NamespaceStatus",
  "core.NamespaceCondition":
    "1 type string;2 status string;4 lastTransitionTime? time;5 reason? string;6 message? string",
  "core.NamespaceSpec": "1 finalizers? []string",
  "core.NamespaceStatus": "1 phase? string;2 conditions? []core.NamespaceCondition",
  "core.NodeAffinity":
    "1 requiredDuringSchedulingIgnoredDuringExecution core.NodeSelector;2 preferredDuringSchedulingIgnoredDuringExecution? []core.PreferredSchedulingTerm",
  "core.NodeAllocatableMappedResources": "1 name string;2 quantity quantity",
  "core.NodeAllocatableOverheadResources": "1 name string;2 perPod quantity;3 perContainer quantity",
  "core.NodeAllocatableResourceClaimStatus":
    "1 resourceClaimName string;2 containers? []string;4 mapping? []core.NodeAllocatableMappedResources;5 overhead? []core.NodeAllocatableOverheadResources",
  "core.NodeSelector": "1 nodeSelectorTerms []core.NodeSelectorTerm",
  "core.NodeSelectorRequirement": "1 key string;2 operator string;3 values? []string",
  "core.NodeSelectorTerm":
    "1 matchExpressions? []core.NodeSelectorRequirement;2 matchFields? []core.NodeSelectorRequirement",
  "core.ObjectFieldSelector": "1 apiVersion? string;2 fieldPath string",
  "core.ObjectReference":
    "1 kind? string;2 namespace? string;3 name? string;4 uid? string;5 apiVersion? string;6 resourceVersion? string;7 fieldPath? string",
  "core.PersistentVolumeClaimSpec":
    "1 accessModes? []string;2 resources? core.VolumeResourceRequirements;3 volumeName? string;4 selector meta.LabelSelector;5 storageClassName string;6 volumeMode string;7 dataSource core.TypedLocalObjectReference;8 dataSourceRef core.TypedObjectReference;9 volumeAttributesClassName string",
  "core.PersistentVolumeClaimTemplate": "1 metadata? meta.ObjectMeta;2 spec core.PersistentVolumeClaimSpec",
  "core.PersistentVolumeClaimVolumeSource": "1 claimName string;2 readOnly? bool",
  "core.PhotonPersistentDiskVolumeSource": "1 pdID string;2 fsType? string",
  "core.Pod": "1 metadata? meta.ObjectMeta;2 spec? core.PodSpec;3 status? core.PodStatus",
  "core.PodAffinity":
    "1 requiredDuringSchedulingIgnoredDuringExecution? []core.PodAffinityTerm;2 preferredDuringSchedulingIgnoredDuringExecution? []core.WeightedPodAffinityTerm",
  "core.PodAffinityTerm":
    "1 labelSelector meta.LabelSelector;2 namespaces? []string;3 topologyKey string;4 namespaceSelector meta.LabelSelector;5 matchLabelKeys? []string;6 mismatchLabelKeys? []string",
  "core.PodAntiAffinity":
    "1 requiredDuringSchedulingIgnoredDuringExecution? []core.PodAffinityTerm;2 preferredDuringSchedulingIgnoredDuringExecution? []core.WeightedPodAffinityTerm",
  "core.PodCertificateProjection":
    "1 signerName? string;2 keyType? string;3 maxExpirationSeconds int32;4 credentialBundlePath? string;5 keyPath? string;6 certificateChainPath? string;7 userAnnotations? map:string;8 user int64",
  "core.PodCondition":
    "1 type string;2 status string;3 lastProbeTime? time;4 lastTransitionTime? time;5 reason? string;6 message? string;7 observedGeneration? int64",
  "core.PodDNSConfig": "1 nameservers? []string;2 searches? []string;3 options? []core.PodDNSConfigOption",
  "core.PodDNSConfigOption": "1 name? string;2 value string",
  "core.PodExtendedResourceClaimStatus":
    "1 requestMappings []core.ContainerExtendedResourceRequest;2 resourceClaimName string",
  "core.PodIP": "1 ip string",
  "core.PodOS": "1 name string",
  "core.PodReadinessGate": "1 conditionType string",
  "core.PodResourceClaim": "1 name string;3 resourceClaimName string;4 resourceClaimTemplateName string",
  "core.PodResourceClaimStatus": "1 name string;2 resourceClaimName string",
  "core.PodSchedulingGate": "1 name string",
  "core.PodSchedulingGroup": "1 podGroupName string",
  "core.PodSecurityContext":
    "1 seLinuxOptions core.SELinuxOptions;2 runAsUser int64;3 runAsNonRoot bool;4 supplementalGroups? []int64;5 fsGroup int64;6 runAsGroup int64;7 sysctls? []core.Sysctl;8 windowsOptions core.WindowsSecurityContextOptions;9 fsGroupChangePolicy string;10 seccompProfile core.SeccompProfile;11 appArmorProfile core.AppArmorProfile;12 supplementalGroupsPolicy string;13 seLinuxChangePolicy string",
  "core.PodSpec":
    "1 volumes? []core.Volume;2 containers []core.Container;3 restartPolicy? string;4 terminationGracePeriodSeconds int64;5 activeDeadlineSeconds int64;6 dnsPolicy? string;7 nodeSelector? map:string;8 serviceAccountName? string;9 serviceAccount? string;10 nodeName? string;11 hostNetwork? bool;12 hostPID? bool;13 hostIPC? bool;14 securityContext core.PodSecurityContext;15 imagePullSecrets? []core.LocalObjectReference;16 hostname? string;17 subdomain? string;18 affinity core.Affinity;19 schedulerName? string;20 initContainers? []core.Container;21 automountServiceAccountToken bool;22 tolerations? []core.Toleration;23 hostAliases? []core.HostAlias;24 priorityClassName? string;25 priority int32;26 dnsConfig core.PodDNSConfig;27 shareProcessNamespace bool;28 readinessGates? []core.PodReadinessGate;29 runtimeClassName string;30 enableServiceLinks bool;31 preemptionPolicy string;32 overhead? map:quantity;33 topologySpreadConstraints? []core.TopologySpreadConstraint;34 ephemeralContainers? []core.EphemeralContainer;35 setHostnameAsFQDN bool;36 os core.PodOS;37 hostUsers bool;38 schedulingGates? []core.PodSchedulingGate;39 resourceClaims? []core.PodResourceClaim;40 resources core.ResourceRequirements;41 hostnameOverride string;43 schedulingGroup core.PodSchedulingGroup;44 evictionResponders? []core.EvictionResponder",
  "core.PodStatus":
    "1 phase? string;2 conditions? []core.PodCondition;3 message? string;4 reason? string;5 hostIP? string;6 podIP? string;7 startTime time;8 containerStatuses? []core.ContainerStatus;9 qosClass? string;10 initContainerStatuses? []core.ContainerStatus;11 nominatedNodeName? string;12 podIPs? []core.PodIP;13 ephemeralContainerStatuses? []core.ContainerStatus;14 resize? string;15 resourceClaimStatuses? []core.PodResourceClaimStatus;16 hostIPs? []core.HostIP;17 observedGeneration? int64;18 extendedResourceClaimStatus core.PodExtendedResourceClaimStatus;19 allocatedResources? map:quantity;20 resources core.ResourceRequirements;21 nodeAllocatableResourceClaimStatuses? []core.NodeAllocatableResourceClaimStatus;22 volumeHealth? []core.PodVolumeHealth",
  "core.PodTemplateSpec": "1 metadata? meta.ObjectMeta;2 spec? core.PodSpec",
  "core.PodVolumeHealth":
    "1 name string;2 healthConditions? []core.VolumeHealthCondition;3 lastTransitionTime? time",
  "core.PortStatus": "1 port int32;2 protocol string;3 error string",
  "core.PortworxVolumeSource": "1 volumeID string;2 fsType? string;3 readOnly? bool",
  "core.PreferredSchedulingTerm": "1 weight int32;2 preference core.NodeSelectorTerm",
  "core.Probe":
    "1 handler* core.ProbeHandler;2 initialDelaySeconds? int32;3 timeoutSeconds? int32;4 periodSeconds? int32;5 successThreshold? int32;6 failureThreshold? int32;7 terminationGracePeriodSeconds int64",
  "core.ProbeHandler":
    "1 exec core.ExecAction;2 httpGet core.HTTPGetAction;3 tcpSocket core.TCPSocketAction;4 grpc core.GRPCAction",
  "core.ProjectedVolumeSource": "1 sources []core.VolumeProjection;2 defaultMode int32;3 defaultUser int64",
  "core.QuobyteVolumeSource":
    "1 registry string;2 volume string;3 readOnly? bool;4 user? string;5 group? string;6 tenant? string",
  "core.RBDVolumeSource":
    "1 monitors []string;2 image string;3 fsType? string;4 pool? string;5 user? string;6 keyring? string;7 secretRef core.LocalObjectReference;8 readOnly? bool",
  "core.ResourceClaim": "1 name string;2 request? string",
  "core.ResourceFieldSelector": "1 containerName? string;2 resource string;3 divisor? quantity",
  "core.ResourceHealth": "1 resourceID string;2 health? string;6 message string",
  "core.ResourceRequirements":
    "1 limits? map:quantity;2 requests? map:quantity;3 claims? []core.ResourceClaim",
  "core.ResourceStatus": "1 name string;2 resources? []core.ResourceHealth",
  "core.SELinuxOptions": "1 user? string;2 role? string;3 type? string;4 level? string",
  "core.ScaleIOVolumeSource":
    "1 gateway string;2 system string;3 secretRef core.LocalObjectReference;4 sslEnabled? bool;5 protectionDomain? string;6 storagePool? string;7 storageMode? string;8 volumeName? string;9 fsType? string;10 readOnly? bool",
  "core.SeccompProfile": "1 type string;2 localhostProfile string",
  "core.Secret":
    "1 metadata? meta.ObjectMeta;2 data? map:bytes;3 type? string;4 stringData? map:string;5 immutable bool",
  "core.SecretEnvSource": "1 localObjectReference* core.LocalObjectReference;2 optional bool",
  "core.SecretKeySelector": "1 localObjectReference* core.LocalObjectReference;2 key string;3 optional bool",
  "core.SecretProjection":
    "1 localObjectReference* core.LocalObjectReference;2 items? []core.KeyToPath;4 optional bool",
  "core.SecretVolumeSource":
    "1 secretName? string;2 items? []core.KeyToPath;3 defaultMode int32;4 optional bool;5 defaultUser int64",
  "core.SecurityContext":
    "1 capabilities core.Capabilities;2 privileged bool;3 seLinuxOptions core.SELinuxOptions;4 runAsUser int64;5 runAsNonRoot bool;6 readOnlyRootFilesystem bool;7 allowPrivilegeEscalation bool;8 runAsGroup int64;9 procMount string;10 windowsOptions core.WindowsSecurityContextOptions;11 seccompProfile core.SeccompProfile;12 appArmorProfile core.AppArmorProfile",
  "core.Service": "1 metadata? meta.ObjectMeta;2 spec? core.ServiceSpec;3 status? core.ServiceStatus",
  "core.ServiceAccount":
    "1 metadata? meta.ObjectMeta;2 secrets? []core.ObjectReference;3 imagePullSecrets? []core.LocalObjectReference;4 automountServiceAccountToken bool",
  "core.ServiceAccountTokenProjection":
    "1 audience? string;2 expirationSeconds int64;3 path string;4 user int64",
  "core.ServicePort":
    "1 name? string;2 protocol? string;3 port int32;4 targetPort? intorstring;5 nodePort? int32;6 appProtocol string",
  "core.ServiceSpec":
    "1 ports? []core.ServicePort;2 selector? map:string;3 clusterIP? string;4 type? string;5 externalIPs? []string;7 sessionAffinity? string;8 loadBalancerIP? string;9 loadBalancerSourceRanges? []string;10 externalName? string;11 externalTrafficPolicy? string;12 healthCheckNodePort? int32;13 publishNotReadyAddresses? bool;14 sessionAffinityConfig core.SessionAffinityConfig;17 ipFamilyPolicy string;18 clusterIPs? []string;19 ipFamilies? []string;20 allocateLoadBalancerNodePorts bool;21 loadBalancerClass string;22 internalTrafficPolicy string;23 trafficDistribution string",
  "core.ServiceStatus": "1 loadBalancer? core.LoadBalancerStatus;2 conditions? []meta.Condition",
  "core.SessionAffinityConfig": "1 clientIP core.ClientIPConfig",
  "core.SleepAction": "1 seconds int64",
  "core.StorageOSVolumeSource":
    "1 volumeName? string;2 volumeNamespace? string;3 fsType? string;4 readOnly? bool;5 secretRef core.LocalObjectReference",
  "core.Sysctl": "1 name string;2 value string",
  "core.TCPSocketAction": "1 port intorstring;2 host? string",
  "core.Toleration":
    "1 key? string;2 operator? string;3 value? string;4 effect? string;5 tolerationSeconds int64",
  "core.TopologySpreadConstraint":
    "1 maxSkew int32;2 topologyKey string;3 whenUnsatisfiable string;4 labelSelector meta.LabelSelector;5 minDomains int32;6 nodeAffinityPolicy string;7 nodeTaintsPolicy string;8 matchLabelKeys? []string",
  "core.TypedLocalObjectReference": "1 apiGroup string;2 kind string;3 name string",
  "core.TypedObjectReference": "1 apiGroup string;2 kind string;3 name string;4 namespace string",
  "core.Volume": "1 name string;2 volumeSource* core.VolumeSource",
  "core.VolumeDevice": "1 name string;2 devicePath string",
  "core.VolumeHealthCondition": "1 status string;2 reason string;3 message? string",
  "core.VolumeMount":
    "1 name string;2 readOnly? bool;3 mountPath string;4 subPath? string;5 mountPropagation string;6 subPathExpr? string;7 recursiveReadOnly string;8 bindMountOptions? []string",
  "core.VolumeMountStatus":
    "1 name string;2 mountPath string;3 readOnly? bool;4 recursiveReadOnly string;5 volumeStatus core.VolumeStatus",
  "core.VolumeProjection":
    "1 secret core.SecretProjection;2 downwardAPI core.DownwardAPIProjection;3 configMap core.ConfigMapProjection;4 serviceAccountToken core.ServiceAccountTokenProjection;5 clusterTrustBundle core.ClusterTrustBundleProjection;6 podCertificate core.PodCertificateProjection",
  "core.VolumeResourceRequirements": "1 limits? map:quantity;2 requests? map:quantity",
  "core.VolumeSource":
    "1 hostPath core.HostPathVolumeSource;2 emptyDir core.EmptyDirVolumeSource;3 gcePersistentDisk core.GCEPersistentDiskVolumeSource;4 awsElasticBlockStore core.AWSElasticBlockStoreVolumeSource;5 gitRepo core.GitRepoVolumeSource;6 secret core.SecretVolumeSource;7 nfs core.NFSVolumeSource;8 iscsi core.ISCSIVolumeSource;9 glusterfs core.GlusterfsVolumeSource;10 persistentVolumeClaim core.PersistentVolumeClaimVolumeSource;11 rbd core.RBDVolumeSource;12 flexVolume core.FlexVolumeSource;13 cinder core.CinderVolumeSource;14 cephfs core.CephFSVolumeSource;15 flocker core.FlockerVolumeSource;16 downwardAPI core.DownwardAPIVolumeSource;17 fc core.FCVolumeSource;18 azureFile core.AzureFileVolumeSource;19 configMap core.ConfigMapVolumeSource;20 vsphereVolume core.VsphereVirtualDiskVolumeSource;21 quobyte core.QuobyteVolumeSource;22 azureDisk core.AzureDiskVolumeSource;23 photonPersistentDisk core.PhotonPersistentDiskVolumeSource;24 portworxVolume core.PortworxVolumeSource;25 scaleIO core.ScaleIOVolumeSource;26 projected core.ProjectedVolumeSource;27 storageos core.StorageOSVolumeSource;28 csi core.CSIVolumeSource;29 ephemeral core.EphemeralVolumeSource;30 image core.ImageVolumeSource",
  "core.VolumeStatus": "1 image core.ImageVolumeStatus",
  "core.VsphereVirtualDiskVolumeSource":
    "1 volumePath string;2 fsType? string;3 storagePolicyName? string;4 storagePolicyID? string",
  "core.WeightedPodAffinityTerm": "1 weight int32;2 podAffinityTerm core.PodAffinityTerm",
  "core.WindowsSecurityContextOptions":
    "1 gmsaCredentialSpecName string;2 gmsaCredentialSpec string;3 runAsUserName string;4 hostProcess bool",
  "events.Event":
    "1 metadata meta.ObjectMeta;2 eventTime microtime;3 series events.EventSeries;4 reportingController? string;5 reportingInstance? string;6 action? string;7 reason? string;8 regarding? core.ObjectReference;9 related core.ObjectReference;10 note? string;11 type? string;12 deprecatedSource? core.EventSource;13 deprecatedFirstTimestamp? time;14 deprecatedLastTimestamp? time;15 deprecatedCount? int32",
  "events.EventSeries": "1 count int32;2 lastObservedTime microtime",
  "meta.Condition":
    "1 type string;2 status string;3 observedGeneration? int64;4 lastTransitionTime time;5 reason string;6 message string",
  "meta.DeleteOptions":
    "1 gracePeriodSeconds int64;2 preconditions meta.Preconditions;3 orphanDependents bool;4 propagationPolicy string;5 dryRun? []string;6 ignoreStoreReadErrorWithClusterBreakingPotential bool",
  "meta.LabelSelector": "1 matchLabels? map:string;2 matchExpressions? []meta.LabelSelectorRequirement",
  "meta.LabelSelectorRequirement": "1 key string;2 operator string;3 values? []string",
  "meta.ManagedFieldsEntry":
    "1 manager? string;2 operation? string;3 apiVersion? string;4 time time;6 fieldsType? string;7 fieldsV1 rawjson;8 subresource? string",
  "meta.ObjectMeta":
    "1 name? string;2 generateName? string;3 namespace? string;4 selfLink? string;5 uid? string;6 resourceVersion? string;7 generation? int64;8 creationTimestamp? time;9 deletionTimestamp time;10 deletionGracePeriodSeconds int64;11 labels? map:string;12 annotations? map:string;13 ownerReferences? []meta.OwnerReference;14 finalizers? []string;17 managedFields? []meta.ManagedFieldsEntry",
  "meta.OwnerReference":
    "1 kind string;3 name string;4 uid string;5 apiVersion string;6 controller bool;7 blockOwnerDeletion bool",
  "meta.Preconditions": "1 uid string;2 resourceVersion string",
  "policy.Eviction": "1 metadata? meta.ObjectMeta;2 deleteOptions meta.DeleteOptions",
};
