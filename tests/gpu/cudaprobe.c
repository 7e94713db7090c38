// SPDX-License-Identifier: GPL-2.0
/*
 * cudaprobe: the smallest whole CUDA program, through the driver API alone,
 * for tests/gpu/run.sh on a host with an NVIDIA GPU and its driver but no
 * CUDA toolkit.  It loads libcuda.so.1 (the driver's) with dlopen(), JIT-
 * compiles a kernel written in PTX below, runs it over 1024 words and checks
 * every result.
 *
 *   gcc -O2 -Wall -Wextra -o cudaprobe tests/gpu/cudaprobe.c -ldl
 *   cudaprobe [DEVICE]          DEVICE: the ordinal, default 0
 *
 * One line per step ("cudaprobe: STEP: ok" or "cudaprobe: STEP: failed,
 * CUresult N (NAME)"), then "cudaprobe: ok" or "cudaprobe: FAILED at STEP".
 * Exit status: 0 when every word was right, 1 when a step failed or a word
 * was wrong, 2 when libcuda.so.1 cannot be loaded.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_WORDS		1024
#define BLOCK		128

/* The kernel: out[i] = in[i] * 2 + 1 for i < n, one thread per word. */
static const char ptx[] =
	".version 6.0\n"
	".target sm_50\n"
	".address_size 64\n"
	"\n"
	".visible .entry double_plus_one(\n"
	"\t.param .u64 arg_out,\n"
	"\t.param .u64 arg_in,\n"
	"\t.param .u32 arg_n\n"
	")\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<8>;\n"
	"\t.reg .b64 %rd<8>;\n"
	"\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tmov.u32 %r2, %ntid.x;\n"
	"\tmov.u32 %r3, %tid.x;\n"
	"\tmad.lo.s32 %r4, %r1, %r2, %r3;\n"
	"\tld.param.u32 %r5, [arg_n];\n"
	"\tsetp.ge.u32 %p1, %r4, %r5;\n"
	"\t@%p1 bra END;\n"
	"\tld.param.u64 %rd1, [arg_out];\n"
	"\tld.param.u64 %rd2, [arg_in];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd2, %rd2;\n"
	"\tmul.wide.u32 %rd3, %r4, 4;\n"
	"\tadd.s64 %rd4, %rd2, %rd3;\n"
	"\tadd.s64 %rd5, %rd1, %rd3;\n"
	"\tld.global.u32 %r6, [%rd4];\n"
	"\tshl.b32 %r7, %r6, 1;\n"
	"\tadd.u32 %r7, %r7, 1;\n"
	"\tst.global.u32 [%rd5], %r7;\n"
	"END:\n"
	"\tret;\n"
	"}\n";

/* The driver API, declared here with plain C types (cuda.h, 64-bit). */
typedef int CUresult;			/* 0 is CUDA_SUCCESS */
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

#define CU_JIT_ERROR_LOG_BUFFER			5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES	6

static struct {
	CUresult (*Init)(unsigned int flags);
	CUresult (*DriverGetVersion)(int *version);
	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*CtxCreate)(CUcontext *ctx, unsigned int flags, CUdevice dev);
	CUresult (*MemAlloc)(CUdeviceptr *dptr, size_t bytes);
	CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*ModuleLoadData)(CUmodule *mod, const void *image);
	CUresult (*ModuleLoadDataEx)(CUmodule *mod, const void *image, unsigned int nopts,
				     int *opts, void **vals);
	CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
	CUresult (*LaunchKernel)(CUfunction fn, unsigned int gx, unsigned int gy,
				 unsigned int gz, unsigned int bx, unsigned int by,
				 unsigned int bz, unsigned int shmem, CUstream stream,
				 void **params, void **extra);
	CUresult (*CtxSynchronize)(void);
	CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*MemFree)(CUdeviceptr dptr);
	CUresult (*ModuleUnload)(CUmodule mod);
	CUresult (*CtxDestroy)(CUcontext ctx);
	CUresult (*GetErrorName)(CUresult err, const char **name);
} cu;

static const char *failed_step;

/* Report one step; returns 1 when it succeeded. */
static int step(const char *name, CUresult res)
{
	const char *ename = NULL;

	if (res == 0) {
		printf("cudaprobe: %s: ok\n", name);
		return 1;
	}
	if (cu.GetErrorName && cu.GetErrorName(res, &ename) != 0)
		ename = NULL;
	printf("cudaprobe: %s: failed, CUresult %d (%s)\n", name, res,
	       ename ? ename : "no name: cuGetErrorName unavailable");
	if (!failed_step)
		failed_step = name;
	return 0;
}

static int load_api(void *lib)
{
	static const struct {
		const char *name;
		void **slot;
		int optional;
	} syms[] = {
		{ "cuInit", (void **)&cu.Init, 0 },
		{ "cuDriverGetVersion", (void **)&cu.DriverGetVersion, 1 },
		{ "cuDeviceGetCount", (void **)&cu.DeviceGetCount, 1 },
		{ "cuDeviceGet", (void **)&cu.DeviceGet, 0 },
		{ "cuDeviceGetName", (void **)&cu.DeviceGetName, 0 },
		{ "cuCtxCreate_v2", (void **)&cu.CtxCreate, 0 },
		{ "cuMemAlloc_v2", (void **)&cu.MemAlloc, 0 },
		{ "cuMemcpyHtoD_v2", (void **)&cu.MemcpyHtoD, 0 },
		{ "cuModuleLoadData", (void **)&cu.ModuleLoadData, 0 },
		{ "cuModuleLoadDataEx", (void **)&cu.ModuleLoadDataEx, 1 },
		{ "cuModuleGetFunction", (void **)&cu.ModuleGetFunction, 0 },
		{ "cuLaunchKernel", (void **)&cu.LaunchKernel, 0 },
		{ "cuCtxSynchronize", (void **)&cu.CtxSynchronize, 0 },
		{ "cuMemcpyDtoH_v2", (void **)&cu.MemcpyDtoH, 0 },
		{ "cuMemFree_v2", (void **)&cu.MemFree, 0 },
		{ "cuModuleUnload", (void **)&cu.ModuleUnload, 0 },
		{ "cuCtxDestroy_v2", (void **)&cu.CtxDestroy, 0 },
		{ "cuGetErrorName", (void **)&cu.GetErrorName, 1 },
	};
	size_t i;
	int ok = 1;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].slot = dlsym(lib, syms[i].name);
		if (!*syms[i].slot && !syms[i].optional) {
			printf("cudaprobe: libcuda.so.1 has no %s (driver too old?)\n",
			       syms[i].name);
			ok = 0;
		}
	}
	return ok;
}

/* JIT the PTX; with cuModuleLoadDataEx, show the compiler's log on failure. */
static int load_module(CUmodule *mod)
{
	static char log[4096];
	int opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[2] = { log, (void *)(uintptr_t)sizeof(log) };
	CUresult res;

	if (!cu.ModuleLoadDataEx)
		return step("cuModuleLoadData (JIT of the PTX kernel)",
			    cu.ModuleLoadData(mod, ptx));
	res = cu.ModuleLoadDataEx(mod, ptx, 2, opts, vals);
	if (res && log[0])
		printf("cudaprobe: JIT log: %s\n", log);
	return step("cuModuleLoadDataEx (JIT of the PTX kernel)", res);
}

int main(int argc, char **argv)
{
	static uint32_t in[N_WORDS], out[N_WORDS];
	CUdeviceptr d_in = 0, d_out = 0;
	CUcontext ctx = NULL;
	CUmodule mod = NULL;
	CUfunction fn;
	CUdevice dev;
	char name[256];
	unsigned int n = N_WORDS, i, bad = 0;
	int ordinal = argc > 1 ? atoi(argv[1]) : 0, v, count, ok;
	void *params[3], *lib;

	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("cudaprobe: cannot load libcuda.so.1: %s\n", dlerror());
		printf("cudaprobe: it comes with NVIDIA's driver (the user-space part, e.g. the "
		       "libcuda1 or libnvidia-compute package): install it, or add its directory "
		       "to LD_LIBRARY_PATH\n");
		return 2;
	}
	if (!load_api(lib))
		return 1;

	if (!step("cuInit", cu.Init(0)))
		goto out;
	if (cu.DriverGetVersion && cu.DriverGetVersion(&v) == 0)
		printf("cudaprobe: CUDA driver API version %d.%d\n", v / 1000, v % 1000 / 10);
	if (cu.DeviceGetCount && cu.DeviceGetCount(&count) == 0)
		printf("cudaprobe: %d device(s)\n", count);
	if (!step("cuDeviceGet", cu.DeviceGet(&dev, ordinal)))
		goto out;
	if (!step("cuDeviceGetName", cu.DeviceGetName(name, sizeof(name), dev)))
		goto out;
	printf("cudaprobe: device %d: %s\n", ordinal, name);
	if (!step("cuCtxCreate_v2", cu.CtxCreate(&ctx, 0, dev)))
		goto out;
	if (!step("cuMemAlloc_v2 (in)", cu.MemAlloc(&d_in, sizeof(in))) ||
	    !step("cuMemAlloc_v2 (out)", cu.MemAlloc(&d_out, sizeof(out))))
		goto out;
	for (i = 0; i < N_WORDS; i++) {
		in[i] = i * 2654435761u;	/* spread over the 32 bits */
		out[i] = 0xdeadbeef;
	}
	if (!step("cuMemcpyHtoD_v2", cu.MemcpyHtoD(d_in, in, sizeof(in))) ||
	    !step("cuMemcpyHtoD_v2 (clear out)", cu.MemcpyHtoD(d_out, out, sizeof(out))))
		goto out;
	if (!load_module(&mod))
		goto out;
	if (!step("cuModuleGetFunction", cu.ModuleGetFunction(&fn, mod, "double_plus_one")))
		goto out;
	params[0] = &d_out;
	params[1] = &d_in;
	params[2] = &n;
	if (!step("cuLaunchKernel", cu.LaunchKernel(fn, N_WORDS / BLOCK, 1, 1, BLOCK, 1, 1, 0,
						    NULL, params, NULL)))
		goto out;
	if (!step("cuCtxSynchronize", cu.CtxSynchronize()))
		goto out;
	if (!step("cuMemcpyDtoH_v2", cu.MemcpyDtoH(out, d_out, sizeof(out))))
		goto out;
	for (i = 0; i < N_WORDS; i++) {
		if (out[i] == in[i] * 2 + 1)
			continue;
		if (bad++ < 5)
			printf("cudaprobe: word %u: 0x%08x, want 0x%08x\n", i, out[i],
			       in[i] * 2 + 1);
	}
	printf("cudaprobe: verify: %u of %u words right\n", N_WORDS - bad, N_WORDS);
	if (bad && !failed_step)
		failed_step = "verify";
out:
	/* Tear down what was made, each step reported. */
	if (d_out)
		step("cuMemFree_v2 (out)", cu.MemFree(d_out));
	if (d_in)
		step("cuMemFree_v2 (in)", cu.MemFree(d_in));
	if (mod)
		step("cuModuleUnload", cu.ModuleUnload(mod));
	if (ctx)
		step("cuCtxDestroy_v2", cu.CtxDestroy(ctx));
	ok = !failed_step;
	if (ok)
		printf("cudaprobe: ok\n");
	else
		printf("cudaprobe: FAILED at %s\n", failed_step);
	return ok ? 0 : 1;
}
