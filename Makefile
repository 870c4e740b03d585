# The two commands of the README:
#   make run   install missing Debian packages, configure, build, open the app on the bundled scene
#   make test  the same set-up, then every test (what .ci/run calls)
# Other targets: make build, make deps (the app's packages), make test-deps (also the tests'), make
# bench-deps (also the benchmark scripts' anchors: OpenCV, matplotlib), make gpu-build (sm_90 tree for the
# GPU machine), make clean.
# make test also rebuilds the CPU code CPU-only under ASan+UBSan (preset asan) and runs its tests.

SHELL := /bin/bash
JOBS ?= $(shell nproc)
# CUDA architecture for `make run`: the local GPU's, else sm_90.
CUDA_ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d . | grep -E '^[0-9]+$$' || echo 90)

.PHONY: run test build deps test-deps bench-deps gpu-build clean

deps:
	@bash tools/install-deps.sh

test-deps:
	@bash tools/install-deps.sh --test

bench-deps:
	@bash tools/install-deps.sh --bench

build: deps
	cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCH)
	cmake --build --preset release -j $(JOBS)

run: build
	./build/release/app/satlab $(ARGS)

test: test-deps
	cmake --preset ci
	cmake --build --preset ci -j $(JOBS)
	ctest --preset ci -j $(JOBS)
	@echo "== the CPU code again under AddressSanitizer + UndefinedBehaviorSanitizer (CPU-only build) =="
	cmake --preset asan
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

gpu-build: deps
	cmake --preset gpu
	cmake --build --preset gpu -j $(JOBS)

clean:
	rm -rf build build-gpu
