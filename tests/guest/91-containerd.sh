#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# containerd given the GPU through nvmediate's CDI spec (nvproxyctl cdi):
# Debian unstable's containerd 2.x (tests/qemu/containerd.sh), whose ctr hands
# CDI device names to the same injection (the CDI library's InjectDevices,
# through containerd's oci.WithCDIDevices) that its CRI plugin uses for a
# Kubernetes pod's CDI devices and annotations.  Image-based containers
# (native snapshotter) with runc, without and with a user namespace
# (--uidmap: runc bind-mounts device nodes there instead of making them),
# and Debian unstable's Docker (28.x, tests/qemu/docker.sh) on this
# containerd, whose --device takes the CDI name.
# As in 90-podman.sh, the container's /dev/nvidiactl, /dev/nvidia0 and
# /dev/nvidia-uvm must show the driver's device numbers, and an ioctl
# made on /dev/nvidiactl there must reach the driver exactly once, through
# nvmediate.  (A spec naming the driver's paths, path /dev/nvidiactl with
# hostPath /dev/nvproxy, fails here under --uidmap: runc then bind-mounts the
# host's raw /dev/nvidiactl.)  The 77 MB of containerd are put in the stock
# guest only (tests/qemu/mkinitramfs.sh).
# nvm-guest: only-on stock
# nvm-guest: limit-factor 3
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvuser.sh"
nvm_begin

T=$NVM_TMP
R=$T/rootfs
SOCK=/run/containerd/containerd.sock

if ! command -v containerd > /dev/null || ! command -v runc > /dev/null; then
	fail containerd-present "containerd or runc is not in the guest (tests/qemu/containerd.sh, podman.sh)"
	nvm_end
fi
if ! load_standin num_gpus=2 || ! load_nvmediate num_gpus=2 > "$T/load.txt" 2>&1 ||
   ! wait_node /dev/nvproxy0 || ! wait_node /dev/nvproxy-uvm; then
	fail containerd-setup "cannot load the stand-in and nvmediate: $(cat "$T/load.txt")"
	nvm_end
fi

mkdir -p /sys/fs/cgroup /etc/cdi /run/containerd "$T/ctrd"
ip link set lo up 2> /dev/null
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount --make-rshared / 2> /dev/null
# The CRI plugin as a node would have it, but for the native snapshotter
# (overlayfs does not take the initramfs), the test image as the pod
# sandbox's image (nothing is pulled), runc without pivot_root (the
# initramfs root cannot be pivoted away from) and a CNI plugin that only
# answers: it reports an address for the pod's eth0 and configures nothing
# (the guest has no CNI plugins and no veth or bridge module; the test is of
# devices, not of networks).  enable_cdi and cdi_spec_dirs are containerd 2's
# defaults.
mkdir -p "$T/cni/bin" "$T/cni/net.d"
echo '{"cniVersion":"1.0.0","name":"nvmtest","plugins":[{"type":"nvmtest-cni"}]}' \
	> "$T/cni/net.d/10-nvmtest.conflist"
cat > "$T/cni/bin/nvmtest-cni" << 'CNI'
#!/bin/sh
cat > /dev/null
case $CNI_COMMAND in
ADD) echo '{"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"'"$CNI_NETNS"'"}],"ips":[{"address":"10.88.0.2/16","interface":0}]}' ;;
VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["0.4.0","1.0.0"]}' ;;
esac
exit 0
CNI
chmod 0755 "$T/cni/bin/nvmtest-cni"
[ -e /etc/hosts ] || echo '127.0.0.1 localhost' > /etc/hosts
[ -e /etc/resolv.conf ] || : > /etc/resolv.conf
cat > "$T/ctrd/config.toml" << CONF
version = 3
root = '$T/ctrd/root'
state = '/run/containerd'
disabled_plugins = ['io.containerd.nri.v1.nri',
  'io.containerd.internal.v1.tracing', 'io.containerd.tracing.processor.v1.otlp',
  'io.containerd.snapshotter.v1.btrfs', 'io.containerd.snapshotter.v1.devmapper',
  'io.containerd.snapshotter.v1.erofs', 'io.containerd.snapshotter.v1.blockfile',
  'io.containerd.snapshotter.v1.zfs']
[grpc]
  address = '$SOCK'
[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'native'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = 'localhost/nvmtest:1'
[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  NoPivotRoot = true
[plugins.'io.containerd.cri.v1.runtime'.cni]
  bin_dirs = ['$T/cni/bin']
  conf_dir = '$T/cni/net.d'
  use_internal_loopback = true
CONF
# serving PID CMD...: wait until CMD (a client's call) succeeds, at most a
# minute; fails when PID (the daemon) is gone.
serving() {
	_p=$1
	shift
	_i=0
	until "$@" > /dev/null 2>&1; do
		_i=$((_i + 1))
		[ $_i -le 120 ] && kill -0 "$_p" 2> /dev/null || return 1
		sleep 0.5
	done
}

containerd --config "$T/ctrd/config.toml" > "$T/ctrd/log" 2>&1 &
ctrd=$!
if ! serving $ctrd ctr -a $SOCK version; then
	fail containerd-start "containerd did not serve $SOCK: $(tail -n 5 "$T/ctrd/log" | tr '\n' ' ')"
	nvm_end
fi
echo "containerd $(cat /usr/share/containerd/version 2> /dev/null)"

# The image: busybox and nvraw, both static, as an OCI image layout that
# ctr imports (one uncompressed layer).
mkdir -p "$R/bin" "$R/dev" "$R/proc" "$R/sys" "$R/tmp" "$R/etc" "$T/img/blobs/sha256"
cp /bin/busybox /bin/nvraw "$R/bin/"
for a in sh stat cat tr sleep rm mknod; do ln -sf busybox "$R/bin/$a"; done
# and, where the guest has NVIDIA's own user space, what runs it (below)
[ ! -x /bin/cudaprobe ] || [ -z "$(ls $DEB 2> /dev/null)" ] || nvu_image_files "$R"
blob() {	# blob FILE: moves FILE into the layout, prints "digest size"
	d=$(sha256sum "$1" | cut -d ' ' -f 1)
	s=$(stat -c %s "$1")
	mv "$1" "$T/img/blobs/sha256/$d"
	echo "$d $s"
}
(cd "$R" && tar -cf "$T/layer.tar" .)
cp "$T/layer.tar" "$T/docker-layer.tar"
blob "$T/layer.tar" > "$T/d"
read -r ld ls < "$T/d"
printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/bin/sleep","100000"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
	"$ld" > "$T/config.json"
blob "$T/config.json" > "$T/d"
read -r cfgd cfgs < "$T/d"
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
	"$cfgd" "$cfgs" "$ld" "$ls" > "$T/manifest.json"
blob "$T/manifest.json" > "$T/d"
read -r md ms < "$T/d"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"localhost/nvmtest:1"}}]}' \
	"$md" "$ms" > "$T/img/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' > "$T/img/oci-layout"
(cd "$T/img" && tar -cf "$T/img.tar" .)
# into ctr's namespace and the CRI plugin's
if ctr -a $SOCK images import --local --snapshotter native "$T/img.tar" > "$T/import.txt" 2>&1 &&
   ctr -a $SOCK -n k8s.io images import --local --snapshotter native "$T/img.tar" >> "$T/import.txt" 2>&1; then
	pass containerd-image
else
	fail containerd-image "ctr cannot import the test image: $(tail -n 3 "$T/import.txt" | tr '\n' ' ')"
fi

if nvproxyctl cdi --output /etc/cdi/nvmediate.json > "$T/cdi.txt" 2>&1; then
	pass containerd-cdi-spec
else
	fail containerd-cdi-spec "$(cat "$T/cdi.txt")"
fi

ctr_setup

# Docker (Debian unstable's dockerd, tests/qemu/docker.sh) on this
# containerd, with CDI on, the image imported from the same root.  runc
# without pivot_root (DOCKER_RAMDISK), no network, no iptables.
DSOCK=unix:///run/docker.sock
dockerd_pid=
if command -v dockerd > /dev/null && command -v docker > /dev/null; then
	mkdir -p /etc/docker "$T/docker"
	echo '{"features": {"cdi": true}, "cdi-spec-dirs": ["/etc/cdi"]}' > /etc/docker/daemon.json
	DOCKER_RAMDISK=true dockerd --containerd $SOCK --data-root "$T/docker/root" \
		--exec-root /run/docker-exec --pidfile /run/docker.pid --host $DSOCK \
		--storage-driver vfs --iptables=false --ip6tables=false --bridge=none --userland-proxy=false \
		> "$T/docker/log" 2>&1 &
	dockerd_pid=$!
	if ! serving $dockerd_pid docker -H $DSOCK version; then
		fail docker-start "dockerd did not serve $DSOCK: $(tail -n 5 "$T/docker/log" | tr '\n' ' ')"
		dockerd_pid=
	fi
	if [ -n "$dockerd_pid" ]; then
		echo "docker $(cat /usr/share/docker/version 2> /dev/null)"
		check docker-image "docker import: $(docker -H $DSOCK import "$T/docker-layer.tar" localhost/nvmtest:1 2>&1 | tail -n 1)" \
			sh -c "docker -H $DSOCK image inspect localhost/nvmtest:1 > /dev/null 2>&1"
	fi
fi

# docker_run NAME CMD: CMD in a Docker container given GPU 0 by CDI.
docker_run() {
	docker -H $DSOCK run --rm --network none --device nvmediate.io/gpu=0 localhost/nvmtest:1 \
		/bin/sh -c "$2" > "$T/$1.out" 2>&1
}

# run NAME RUNTIME [ctr run options]: RUNTIME is the runc-compatible binary.
# The initramfs root cannot be pivoted away from (--no-pivot).
n_run=0
run() {
	name=$1
	bin=$2
	shift 2
	n_run=$((n_run + 1))
	ctr_begin
	ctr -a $SOCK run --rm --no-pivot --snapshotter native --runc-binary "$bin" \
		--device nvmediate.io/gpu=0 "$@" localhost/nvmtest:1 "nvm$n_run" \
		/bin/sh -c "$ctr_inside" > "$T/$name.out" 2>&1
	rc=$?
	case " $* " in
	*" --uidmap "*) uid=100000 ;;
	*) uid=0 ;;
	esac
	ctr_verdict "containerd-$name" $rc "$T/$name.out" $uid
}

# runc only: Debian 12's crun (1.8.1) refuses the spec containerd 2.x writes
# ("unknown version specified": its ociVersion is newer than crun knows).
run runc-rootful "$(command -v runc)"
run runc-uidmap "$(command -v runc)" --uidmap 0:100000:65536 --gidmap 0:100000:65536

# A pod through the CRI plugin, made with the calls a kubelet makes (nvcri):
# the CDI device in the CreateContainer field the kubelet fills from a
# device plugin's CDI answer (DevicePluginCDIDevices), or in a cdi.k8s.io/
# annotation of the container (a device plugin's annotations land there).
# Not a pod with a user namespace (hostUsers: false): the CRI
# plugin asks the runtime for idmapped mounts there, which Debian 12's runc
# 1.1.5 does not have (containerd refuses the pod: "idmap mounts not
# supported"); runc bind-mounts the nodes in a user namespace the same way
# whoever asked for it, which the --uidmap cases above cover.
# cri NAME [nvcri options]
cri() {
	name=$1
	shift
	ctr_begin
	rm -rf "$T/pod-$name"
	mkdir -p "$T/pod-$name"
	nvcri $SOCK localhost/nvmtest:1 "$T/pod-$name" "$@" -- /bin/sh -c "$ctr_inside" \
		> "$T/$name.nvcri" 2>&1
	rc=$?
	grep -q '^exit 0$' "$T/$name.nvcri" || rc=1
	# the CRI log format: TIME STREAM TAG TEXT
	sed 's/^[^ ]* [^ ]* [^ ]* //' "$T/pod-$name/c.log" > "$T/$name.out" 2> /dev/null
	{
		echo "nvcri: $(tail -n 3 "$T/$name.nvcri" | tr '\n' ' ')"
		echo "containerd: $(grep level=error "$T/ctrd/log" | tail -n 2 | tr '\n' ' ')"
	} >> "$T/$name.out"
	ctr_verdict "cri-$name" $rc "$T/$name.out" 0
}

if [ -n "$dockerd_pid" ]; then
	ctr_begin
	docker_run docker-rootful "$ctr_inside"
	ctr_verdict docker-rootful $? "$T/docker-rootful.out" 0
fi

cri cdi-field -d nvmediate.io/gpu=0
cri annotation -a nvmediate.io/gpu=0
# Beside NVIDIA's runtime as the default one (the GPU Operator's setup), a
# CUDA image's NVIDIA_VISIBLE_DEVICES=all would have it add the raw nodes:
# nvmediate's spec sets the variable to void, which that runtime reads from
# the container's final spec, as the container does.
rm -rf "$T/pod-void"
mkdir -p "$T/pod-void"
nvcri $SOCK localhost/nvmtest:1 "$T/pod-void" -d nvmediate.io/gpu=0 -e NVIDIA_VISIBLE_DEVICES=all -- \
	/bin/sh -c 'echo "visible=$NVIDIA_VISIBLE_DEVICES"' > "$T/void.nvcri" 2>&1
check cri-nvidia-visible-void "the container's NVIDIA_VISIBLE_DEVICES: $(grep -o 'visible=.*' "$T/pod-void/c.log" 2> /dev/null) ($(tail -n 1 "$T/void.nvcri"))" \
	grep -q ' visible=void$' "$T/pod-void/c.log"
rm -rf "$T/pod-all"
mkdir -p "$T/pod-all"
nvcri $SOCK localhost/nvmtest:1 "$T/pod-all" -e NVIDIA_VISIBLE_DEVICES=all -- \
	/bin/sh -c 'echo "visible=$NVIDIA_VISIBLE_DEVICES"' > "$T/all.nvcri" 2>&1
check cri-nvidia-visible-control "without nvmediate's device: $(grep -o 'visible=.*' "$T/pod-all/c.log" 2> /dev/null)" \
	grep -q ' visible=all$' "$T/pod-all/c.log"
# The kubelet gives a pod's own annotations to the sandbox only, and the CRI
# plugin injects CDI devices from the container's: a pod annotation gives
# the container no GPU (docs/containers.md says so).
rm -rf "$T/pod-podannot"
mkdir -p "$T/pod-podannot"
nvcri $SOCK localhost/nvmtest:1 "$T/pod-podannot" -p nvmediate.io/gpu=0 -- \
	/bin/sh -c 'ls /dev; stat -c %t:%T /dev/nvidiactl' > "$T/podannot.nvcri" 2>&1
# (ls lists /dev on stdout; the failing stat speaks on stderr)
if grep -q '^exit 1$' "$T/podannot.nvcri" && grep -q ' stdout F null$' "$T/pod-podannot/c.log" &&
   ! grep -q ' stdout F nvidia' "$T/pod-podannot/c.log"; then
	pass cri-pod-annotation-ignored
else
	fail cri-pod-annotation-ignored "nvcri: $(tail -n 2 "$T/podannot.nvcri" | tr '\n' ' ') log: $(tr '\n' ' ' < "$T/pod-podannot/c.log")"
fi

# NVIDIA's own user space (nvuser.sh): Debian's libcuda and nvidia-smi of
# the first release the guest has, on its open module with no GPU, in a ctr
# container and a CRI pod given GPU 0 by nvproxyctl cdi --from a spec of
# nvidia-ctk's form (the libraries as mounts): what they print and the
# calls they make must be the direct run's, every call forwarded.
rel=$(ls $DEB 2> /dev/null | head -n 1)
if [ -n "$rel" ] && [ -x /bin/cudaprobe ]; then
	LIB=/opt/nvidia/$rel/lib
	BIN=/opt/nvidia/$rel/bin
	if ! deb_load "$rel" open; then
		fail "containerd-nvuser-$rel" "$(tr '\n' ' ' < "$T/insmod.txt")"
	elif ! ctk_spec "$rel" > "$T/ctk.yaml" ||
	     ! nvproxyctl cdi --from "$T/ctk.yaml" --output /etc/cdi/nvmediate.json > "$T/cdi.txt" 2>&1; then
		fail "containerd-nvuser-$rel" "cdi --from: $(tr '\n' ' ' < "$T/cdi.txt")"
	else
		probe d-root root direct
		f0=$(counter_sum forwarded)
		o0=$(($(counter_sum refused) + $(counter_sum answered)))
		n_run=$((n_run + 1))
		ctr -a $SOCK run --rm --no-pivot --snapshotter native --runc-binary "$(command -v runc)" \
			--device nvmediate.io/gpu=0 localhost/nvmtest:1 "nvm$n_run" /bin/sh -c "$nvu_inside" \
			> "$T/ctr-nvuser.out" 2>&1
		rc=$?
		nvu_split "$T/ctr-nvuser.out" ctr
		nvu_verdict "containerd-nvuser-$rel-runc" $rc ctr "$f0" "$o0"
		f0=$(counter_sum forwarded)
		o0=$(($(counter_sum refused) + $(counter_sum answered)))
		rm -rf "$T/pod-nvuser"
		mkdir -p "$T/pod-nvuser"
		nvcri $SOCK localhost/nvmtest:1 "$T/pod-nvuser" -d nvmediate.io/gpu=0 -- \
			/bin/sh -c "$nvu_inside" > "$T/nvuser.nvcri" 2>&1
		rc=$?
		grep -q '^exit 0$' "$T/nvuser.nvcri" || rc=1
		sed 's/^[^ ]* [^ ]* [^ ]* //' "$T/pod-nvuser/c.log" > "$T/cri-nvuser.out" 2> /dev/null
		nvu_split "$T/cri-nvuser.out" cri
		nvu_verdict "cri-nvuser-$rel" $rc cri "$f0" "$o0"
		if [ -n "$dockerd_pid" ]; then
			f0=$(counter_sum forwarded)
			o0=$(($(counter_sum refused) + $(counter_sum answered)))
			docker_run docker-nvuser "$nvu_inside"
			rc=$?
			nvu_split "$T/docker-nvuser.out" dkr
			nvu_verdict "docker-nvuser-$rel" $rc dkr "$f0" "$o0"
		fi
	fi
fi
[ -z "$dockerd_pid" ] || { kill $dockerd_pid; wait $dockerd_pid 2> /dev/null; }

kill $ctrd
wait $ctrd 2> /dev/null
nvm_end
