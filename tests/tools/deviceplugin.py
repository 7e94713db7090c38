#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The device plugin (tools/k8s/nvmediate-device-plugin) against a kubelet
of our own: the device plugin API v1beta1 over gRPC on unix sockets, as the
kubelet speaks it (its Registration service; ListAndWatch, Allocate on the
plugin's socket).  The messages are decoded here by their field numbers
(written from the API's proto file), not with the plugin's code.

    deviceplugin.py PLUGIN TMPDIR

Prints "ok - ..." / "not ok - ..." lines and exits 1 when any failed.
"""

import json
import os
import subprocess
import sys
import threading
import time
from concurrent import futures

import grpc

plugin_path, tmp = sys.argv[1], sys.argv[2]
failed = 0


def check(desc, cond, detail=""):
    global failed
    if cond:
        print("ok - %s" % desc)
    else:
        failed += 1
        print("not ok - %s%s" % (desc, (": %s" % detail) if detail else ""))


def fields(data):
    """{number: [values]}: varints as ints, length-delimited as bytes."""
    out, i = {}, 0

    def varint():
        nonlocal i
        n = shift = 0
        while True:
            b = data[i]
            i += 1
            n |= (b & 0x7F) << shift
            if b < 0x80:
                return n
            shift += 7

    while i < len(data):
        key = varint()
        if key & 7 == 0:
            v = varint()
        elif key & 7 == 2:
            n = varint()
            v = bytes(data[i:i + n])
            i += n
        else:
            raise ValueError("wire type %d" % (key & 7))
        out.setdefault(key >> 3, []).append(v)
    return out


def enc(num, payload):
    n, ln = bytearray(), len(payload)
    while True:
        n.append((ln & 0x7F) | (0x80 if ln > 0x7F else 0))
        ln >>= 7
        if not ln:
            break
    return bytes([num << 3 | 2]) + bytes(n) + payload


def devices_of(msg):
    """ListAndWatchResponse -> [(ID, health)]."""
    return [(fields(d)[1][0].decode(), fields(d)[2][0].decode()) for d in fields(msg).get(1, [])]


def write_spec(gpus):
    devs = []
    for k in gpus:
        devs.append({"name": str(k), "containerEdits": {"deviceNodes": [{"path": "/dev/nvproxy%d" % k}]}})
        devs.append({"name": "GPU-%08d-0000-0000-0000-000000000000" % k,
                     "containerEdits": {"deviceNodes": [{"path": "/dev/nvproxy%d" % k}]}})
    devs.append({"name": "all", "containerEdits": {}})
    with open(spec + ".tmp", "w") as f:
        json.dump({"cdiVersion": "0.5.0", "kind": "nvmediate.io/gpu", "devices": devs}, f)
    os.rename(spec + ".tmp", spec)


def set_tier(t):
    with open(os.path.join(sysfs, "tier"), "w") as f:
        f.write(t + "\n")


pdir = os.path.join(tmp, "device-plugins")
sysfs = os.path.join(tmp, "sys")
spec = os.path.join(tmp, "nvmediate.json")
os.makedirs(pdir, exist_ok=True)
os.makedirs(sysfs, exist_ok=True)
write_spec([0, 1])
set_tier("exact")

registered = []
reg_event = threading.Event()


def register(request, context):
    registered.append(fields(request))
    reg_event.set()
    return b""


def kubelet():
    s = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    s.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("v1beta1.Registration", {
        "Register": grpc.unary_unary_rpc_method_handler(
            register, request_deserializer=lambda b: b, response_serializer=lambda b: b)}),))
    s.add_insecure_port("unix://" + os.path.join(pdir, "kubelet.sock"))
    s.start()
    return s


ks = kubelet()
log = open(os.path.join(tmp, "plugin.log"), "w")
proc = subprocess.Popen([plugin_path, "--plugin-dir", pdir, "--spec", spec, "--sysfs", sysfs,
                         "--interval", "0.2"], stdout=log, stderr=log)
try:
    check("the plugin registers with the kubelet", reg_event.wait(15),
          open(os.path.join(tmp, "plugin.log")).read())
    r = registered[0] if registered else {}
    check("... as v1beta1, nvmediate.io/gpu, at its own socket",
          r.get(1) == [b"v1beta1"] and r.get(3) == [b"nvmediate.io/gpu"] and
          r.get(2) == [b"nvmediate.sock"] and os.path.exists(os.path.join(pdir, "nvmediate.sock")), r)
    opts = fields(r.get(4, [b""])[0])
    check("... asking for no PreStartContainer and no preferred allocation",
          not opts.get(1, [0])[0] and not opts.get(2, [0])[0], opts)

    ch = grpc.insecure_channel("unix://" + os.path.join(pdir, "nvmediate.sock"))
    raw = dict(request_serializer=lambda b: b, response_deserializer=lambda b: b)
    o = ch.unary_unary("/v1beta1.DevicePlugin/GetDevicePluginOptions", **raw)(b"", timeout=5)
    check("GetDevicePluginOptions answers", o is not None)
    stream = ch.unary_stream("/v1beta1.DevicePlugin/ListAndWatch", **raw)(b"", timeout=60)
    first = devices_of(next(stream))
    check("ListAndWatch: one device per GPU of the spec, by index, Healthy",
          first == [("0", "Healthy"), ("1", "Healthy")], first)

    alloc = ch.unary_unary("/v1beta1.DevicePlugin/Allocate", **raw)
    req = enc(1, enc(1, b"1")) + enc(1, enc(1, b"0") + enc(1, b"1"))
    resp = fields(alloc(req, timeout=5))
    conts = [fields(c) for c in resp.get(1, [])]
    names = [[fields(d)[1][0].decode() for d in c.get(5, [])] for c in conts]
    check("Allocate: per container, the devices' CDI names in cdi_devices",
          names == [["nvmediate.io/gpu=1"], ["nvmediate.io/gpu=0", "nvmediate.io/gpu=1"]], names)
    check("... and no device path, mount, environment or annotation",
          all(set(c) <= {5} for c in conts), conts)
    try:
        alloc(enc(1, enc(1, b"7")), timeout=5)
        check("Allocate of a device the spec lacks: NOT_FOUND", False, "answered")
    except grpc.RpcError as e:
        check("Allocate of a device the spec lacks: NOT_FOUND",
              e.code() == grpc.StatusCode.NOT_FOUND, e.code())

    set_tier("outside")
    nxt = devices_of(next(stream))
    check("nvmediate refusing the host's driver: the devices Unhealthy",
          nxt == [("0", "Unhealthy"), ("1", "Unhealthy")], nxt)
    set_tier("successor")
    write_spec([0])
    deadline, nxt = time.time() + 10, None
    while time.time() < deadline:
        nxt = devices_of(next(stream))
        if nxt == [("0", "Healthy")]:
            break
    check("a GPU gone from the spec, the driver served again: the list follows",
          nxt == [("0", "Healthy")], nxt)

    # The kubelet restarts: its socket is made anew, the plugin's removed.
    ks.stop(0)
    os.unlink(os.path.join(pdir, "nvmediate.sock"))
    try:
        os.unlink(os.path.join(pdir, "kubelet.sock"))
    except FileNotFoundError:
        pass
    reg_event.clear()
    time.sleep(0.5)
    ks = kubelet()
    check("after a kubelet restart the plugin registers again",
          reg_event.wait(15) and len(registered) == 2, len(registered))
    ch.close()
finally:
    proc.terminate()
    proc.wait(10)
    ks.stop(0)
sys.exit(1 if failed else 0)
