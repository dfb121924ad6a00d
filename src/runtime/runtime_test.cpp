// SPDX-License-Identifier: Apache-2.0
// Device selection, the program cache (and its disk file layout) and error reporting.
#include "clfilters/runtime.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "clfilters/border.hpp"
#include "clfilters/device_image.hpp"
#include "runtime/kernel_sources.hpp"
#include "runtime/program_cache_file.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

// The kernel the program-cache tests build, and the check that a program built from it works.
constexpr const char* kAddOneSource = "__kernel void add_one(__global int* p) { p[get_global_id(0)] += 1; }";

// The kernel of `p` adds one to each of a few ints; the result is checked against that.
void expect_adds_one(Context& ctx, cl::Program& p) {
  cl_int err = CL_SUCCESS;
  cl::Kernel k(p, "add_one", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<int> host = {5, -7, 1000};
  cl::Buffer buf(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(int), host.data());
  k.setArg(0, buf);
  ctx.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(host.size()));
  ctx.queue().enqueueReadBuffer(buf, CL_TRUE, 0, host.size() * sizeof(int), host.data());
  EXPECT_EQ(host, (std::vector<int>{6, -6, 1001}));
}

TEST(Devices, ListsAtLeastOneWithItsProperties) {
  const auto all = list_devices();
  ASSERT_FALSE(all.empty());
  for (const auto& d : all) {
    EXPECT_FALSE(d.info.name.empty());
    EXPECT_GT(d.info.compute_units, 0u);
    EXPECT_GT(d.info.global_mem_bytes, 0u);
    EXPECT_GT(d.info.max_work_group_size, 0u);
    EXPECT_FALSE(d.info.driver_version.empty());
  }
}

TEST(Devices, SelectsByIndexNameAndEnvironment) {
  ScopedEnv clear("CLFILTERS_DEVICE", nullptr);
  const auto all = list_devices();
  const auto& last = all.back().info;
  EXPECT_EQ(select_device(std::to_string(all.size() - 1)).info.name, last.name);
  EXPECT_EQ(select_device(last.index_name()).info.name, last.name);
  // A case-insensitive substring of the device name.
  std::string upper = last.name.substr(0, 6);
  for (auto& ch : upper) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  EXPECT_EQ(select_device(upper).info.platform_name, select_device(last.name.substr(0, 6)).info.platform_name);
  {
    ScopedEnv env("CLFILTERS_DEVICE", last.index_name().c_str());
    EXPECT_EQ(select_device().info.index_name(), last.index_name());
  }
  // The default prefers a GPU, else a CPU.
  bool any_gpu = false;
  for (const auto& d : all) any_gpu = any_gpu || (d.info.type & CL_DEVICE_TYPE_GPU);
  EXPECT_EQ(bool(select_device().info.type & CL_DEVICE_TYPE_GPU), any_gpu);
}

// CLFILTERS_DEVICE_MEMORY caps both memory limits, in bytes or binary units; a bad value names the variable.
TEST(Devices, MemoryCapFromTheEnvironment) {
  const DeviceInfo whole = list_devices().front().info;
  for (const auto& [text, bytes] : {std::pair{"1048576", std::uint64_t(1) << 20},
                                    {"3M", std::uint64_t(3) << 20},
                                    {"64k", std::uint64_t(64) << 10},
                                    {"2G", std::uint64_t(2) << 30}}) {
    SCOPED_TRACE(text);
    const ScopedEnv cap("CLFILTERS_DEVICE_MEMORY", text);
    const DeviceInfo capped = list_devices().front().info;
    EXPECT_EQ(capped.global_mem_bytes, std::min(whole.global_mem_bytes, bytes));
    EXPECT_EQ(capped.max_alloc_bytes, std::min(whole.max_alloc_bytes, bytes));
  }
  for (const char* bad : {"lots", "0", "12T", "1.5G", "-4", "99999999999999999999"}) {
    const ScopedEnv cap("CLFILTERS_DEVICE_MEMORY", bad);
    try {
      list_devices();
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("CLFILTERS_DEVICE_MEMORY"), std::string::npos) << e.what();
    }
  }
}

// fast_exp2/fast_sqrt get their .ftz PTX forms only from NVIDIA's compiler (border.cl).
TEST(Devices, FastMathOptionsOnlyForNvidia) {
  DeviceInfo nvidia;
  nvidia.platform_name = "NVIDIA CUDA";
  EXPECT_TRUE(nvidia.takes_nvidia_ptx());
  EXPECT_EQ(nvidia.fast_math_options(), " -D NV_PTX_FTZ=1");
  DeviceInfo pocl;
  pocl.platform_name = "Portable Computing Language";
  pocl.extensions = "cl_khr_fp64 cl_khr_subgroups";
  EXPECT_FALSE(pocl.takes_nvidia_ptx());
  EXPECT_EQ(pocl.fast_math_options(), "");
  pocl.extensions += " cl_nv_device_attribute_query";
  EXPECT_TRUE(pocl.takes_nvidia_ptx());
}

TEST(Devices, BadSelectorsExplainThemselves) {
  try {
    select_device("no-such-device-anywhere");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-device-anywhere"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("devices:"), std::string::npos);
  }
  EXPECT_THROW(select_device("999"), std::invalid_argument);
  EXPECT_THROW(select_device("0:999"), std::invalid_argument);
}

TEST(ProgramCache, BuildsOnceAndWritesTheDiskCache) {
  // OpenCL first, under the outer XDG_CACHE_HOME: PoCL takes its own cache directory from it once, at its
  // start, and its builds fail with an empty log once that directory is gone (this test removes `dir`).
  ASSERT_FALSE(list_devices().empty());
  const fs::path dir = fs::temp_directory_path() / fmt::format("clf-cache-{}", ::getpid());
  fs::remove_all(dir);
  ScopedEnv xdg("XDG_CACHE_HOME", dir.c_str());
  ScopedEnv on("CLFILTERS_NO_DISK_CACHE", "0");  // on, also on PoCL
  Context ctx;
  const std::string source = kAddOneSource;
  cl::Program& a = ctx.program_from_source("test.cl", source, "");
  cl::Program& b = ctx.program_from_source("test.cl", source, "");
  EXPECT_EQ(a(), b());  // the in-memory cache returns the same program
  ASSERT_TRUE(fs::exists(dir / "clfilters" / "programs"));
  // One binary and, beside it, what it was built from.
  int binaries = 0;
  for (const auto& f : fs::directory_iterator(dir / "clfilters" / "programs")) {
    if (f.path().extension() != ".bin") continue;
    ++binaries;
    std::ifstream about(fs::path(f.path()).replace_extension(".txt"));
    std::string first_line;
    std::getline(about, first_line);
    EXPECT_EQ(first_line, "test.cl ") << f.path();
  }
  EXPECT_EQ(binaries, 1);

  // A second context loads the binary from disk, and the kernel from it works.
  Context again;
  expect_adds_one(again, again.program_from_source("test.cl", source, ""));

  // A corrupt cached binary is rebuilt from source, not an error.
  for (const auto& f : fs::directory_iterator(dir / "clfilters" / "programs")) {
    if (f.path().extension() == ".bin") std::ofstream(f.path(), std::ios::binary | std::ios::trunc) << "garbage";
  }
  Context third;
  EXPECT_NO_THROW(third.program_from_source("test.cl", source, ""));
  fs::remove_all(dir);
}

TEST(ProgramCache, PoclKeepsItsOwnCacheOnly) {
  ASSERT_FALSE(list_devices().empty());
  const fs::path dir = fs::temp_directory_path() / fmt::format("clf-cache-pocl-{}", ::getpid());
  fs::remove_all(dir);
  ScopedEnv xdg("XDG_CACHE_HOME", dir.c_str());
  ScopedEnv unset("CLFILTERS_NO_DISK_CACHE", nullptr);
  Context ctx;
  const bool pocl = ctx.info().platform_name.find("Portable Computing Language") != std::string::npos;
  ctx.program_from_source("test.cl", "__kernel void nothing(__global int* p) { p[0] = 3; }", "");
  // Elsewhere the binary is written (BuildsOnceAndWritesTheDiskCache); PoCL's own cache is the faster one there.
  EXPECT_EQ(fs::exists(dir / "clfilters" / "programs"), !pocl);
  fs::remove_all(dir);
}

TEST(ProgramCache, BuildFailureCarriesTheLog) {
  ScopedEnv off("CLFILTERS_NO_DISK_CACHE", "1");
  Context ctx;
  try {
    ctx.program_from_source("broken.cl", "__kernel void k(__global int* p) { p[0] = undeclared_name; }", "");
    FAIL() << "expected a build error";
  } catch (const ClError& e) {
    EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
    EXPECT_NE(e.call().find("broken.cl"), std::string::npos);
    EXPECT_NE(e.build_log().find("undeclared_name"), std::string::npos) << e.build_log();
    EXPECT_NE(std::string(e.what()).find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos);
  }
}

// CLFILTERS_BUILD_OPTIONS reaches the build of an embedded kernel file: a macro that breaks border.cl's
// code (every kernel file starts with it) makes the build fail, naming the option in the call.
TEST(ProgramCache, BuildOptionsFromTheEnvironmentReachEveryBuild) {
  ScopedEnv off("CLFILTERS_NO_DISK_CACHE", "1");
  ScopedEnv extra("CLFILTERS_BUILD_OPTIONS", "-D border_index=(");
  Context ctx;
  try {
    ctx.program("sobel.cl", "-D OUTPUT=0");
    FAIL() << "expected the extra option to break the build";
  } catch (const ClError& e) {
    EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
    EXPECT_NE(e.call().find("-D OUTPUT=0 -D border_index=("), std::string::npos) << e.call();
  }
}

// A kernel already built without the option is not reused once CLFILTERS_BUILD_OPTIONS is set: the same
// file, options and name then build again, with the option (here one that breaks the build).
TEST(ProgramCache, KernelsAreKeyedByTheEnvironmentsBuildOptions) {
  ScopedEnv off("CLFILTERS_NO_DISK_CACHE", "1");
  Context ctx;
  EXPECT_NO_THROW(ctx.kernel("sobel.cl", "-D OUTPUT=0", "sobel_naive"));
  ScopedEnv extra("CLFILTERS_BUILD_OPTIONS", "-D border_index=(");
  EXPECT_THROW(ctx.kernel("sobel.cl", "-D OUTPUT=0", "sobel_naive"), ClError);
}

TEST(ClErrors, NameTheErrorAndTheCall) {
  EXPECT_STREQ(cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_STREQ(cl_error_name(-12345), "CL_UNKNOWN_ERROR");
  const ClError e(CL_INVALID_WORK_GROUP_SIZE, "clEnqueueNDRangeKernel(box_naive)");
  EXPECT_EQ(std::string(e.what()), "clEnqueueNDRangeKernel(box_naive) failed: CL_INVALID_WORK_GROUP_SIZE (-54)");
  EXPECT_THROW(check_cl(CL_INVALID_VALUE, "clFoo"), ClError);
  EXPECT_NO_THROW(check_cl(CL_SUCCESS, "clFoo"));
}

TEST(EmbeddedKernels, AreInTheBinary) {
  EXPECT_NE(embedded_kernel_source("box_blur.cl").find("box_naive"), std::string_view::npos);
  EXPECT_NE(embedded_kernel_source("border.cl").find("border_index"), std::string_view::npos);
  EXPECT_THROW(embedded_kernel_source("missing.cl"), std::invalid_argument);
}

// kernel_code keys the tuning database: a comment or layout edit (clang-format's included) must keep the key,
// any change the compiler sees must change it.
TEST(KernelCode, IgnoresCommentsAndLayout) {
  const std::string before =
      "#define N 4 // four\n"
      "#define ADD(a, b) \\\n  ((a) + (b))\n"
      "kernel void k(global int* p) {\n"
      "  /* first */ p[0] = ADD(N, 1)*2;\t// done\n"
      "}\n";
  const std::string after =
      "// a new first line\n"
      "#  define N 4\n"
      "\n"
      "/* a block\n   over two lines */\n"
      "#define ADD(a,b) ((a)+(b))\n"
      "kernel void k(global int *p)\n"
      "{\n"
      "    p[0] = ADD(N, 1) * 2 ;\n"
      "}";
  EXPECT_EQ(kernel_code(before), kernel_code(after));
  EXPECT_EQ(kernel_code(before),
            "# define N 4\n# define ADD( a , b ) ( ( a ) + ( b ) )\n"
            "kernel void k ( global int * p ) { p [ 0 ] = ADD ( N , 1 ) * 2 ; }");
}

// The tuning key covers the 8-bit code alone: a 16-bit form added in `#if SAMPLE_BITS == 16` blocks (with or without
// an #else holding the 8-bit code, conditionals nested inside) keeps it; any change to the 8-bit code changes it.
TEST(KernelCode, EightBitCodeIgnoresSixteenBitForms) {
  const std::string before =
      "#define W 4\n"
      "typedef uchar pix_t;\n"
      "kernel void k(global pix_t* p) { p[0] = W; }\n";
  const std::string after =
      "#define W 4\n"
      "#if SAMPLE_BITS == 16\n"
      "typedef ushort pix_t;\n"
      "#if CHANNELS == 4\n#define X 1\n#else\n#define X 2\n#endif\n"
      "#else\n"
      "typedef uchar pix_t;\n"
      "#endif\n"
      "kernel void k(global pix_t* p) {\n"
      "#if SAMPLE_BITS == 16\n  p[1] = 0;\n#endif\n"
      "  p[0] = W; }\n";
  EXPECT_NE(kernel_code(before), kernel_code(after));
  EXPECT_EQ(eight_bit_code(kernel_code(before)), kernel_code(before));
  EXPECT_EQ(eight_bit_code(kernel_code(after)), kernel_code(before));
  // Other conditionals stay, and so does a change outside the blocks.
  const std::string other = "#if CHANNELS == 4\nx;\n#else\ny;\n#endif\nz;";
  EXPECT_EQ(eight_bit_code(kernel_code(other)), kernel_code(other));
  std::string changed = after;
  changed.replace(changed.find("p[0] = W"), 8, "p[0] = 5");
  EXPECT_NE(eight_bit_code(kernel_code(changed)), kernel_code(before));
}

TEST(KernelCode, KeepsWhatTheCompilerSees) {
  const std::string base = "#define N 4\nkernel void k(global int* p) { p[0] = N; }";
  for (const std::string changed : {
           "#define N 5\nkernel void k(global int* p) { p[0] = N; }",    // a token
           "#define N 4 kernel void k(global int* p) { p[0] = N; }",     // the directive's end
           "#define N 4\\\nkernel void k(global int* p) { p[0] = N; }",  // a spliced line joins the directive
           "#define N 4\nkernel void k(global int* p) { p[0] = N_; }",   // a longer identifier
       }) {
    SCOPED_TRACE(changed);
    EXPECT_NE(kernel_code(base), kernel_code(changed));
  }
  // Tokens split as the compiler splits them: longest punctuator first, and a space or comment ends a token.
  EXPECT_NE(kernel_code("x = a+++b;"), kernel_code("x = a+ ++b;"));
  EXPECT_NE(kernel_code("x = a - -b;"), kernel_code("x = a--b;"));
  EXPECT_NE(kernel_code("x = a/**/b;"), kernel_code("x = ab;"));
  EXPECT_EQ(kernel_code("x = 1.5e+3f+y;"), "x = 1.5e+3f + y ;");
  // A space before a #define's "(" turns a function-like macro into an object-like one.
  EXPECT_NE(kernel_code("#define F(x) x\n"), kernel_code("#define F (x) x\n"));
  EXPECT_EQ(kernel_code("#define F(x) x\ny = F(1);"), kernel_code("#define F( x )  x\ny = F (1);"));
  // Literals stay as written: comment markers and whitespace inside them are text.
  EXPECT_EQ(kernel_code("printf(\"a  // b\\\" /* c */\");  // d"), "printf ( \"a  // b\\\" /* c */\" ) ;");
  EXPECT_EQ(kernel_code("c = '\"';  x = '\\'';  // \"q"), "c = '\"' ; x = '\\'' ;");
  EXPECT_NE(kernel_code("s = \"a b\";"), kernel_code("s = \"a  b\";"));
  // A line comment ends at a newline, unless a backslash splices the next line into it.
  EXPECT_EQ(kernel_code("a; // x\nb;"), "a ; b ;");
  EXPECT_EQ(kernel_code("a; // x \\\nb;\nc;"), "a ; c ;");
  // #line only renames lines for messages, so a kernel split over included files keeps its key.
  EXPECT_EQ(kernel_code("a;\n#line 7 \"x.cl\"\nb;\n#  line 1 \"y.cl\"\nc;"), "a ; b ; c ;");
}

TEST(KernelCode, HashesEachKernelFileWithTheSharedHeader) {
  const std::string box = full_kernel_source("box_blur.cl");
  EXPECT_NE(box.find("border_index"), std::string::npos);
  EXPECT_NE(box.find("box_naive"), std::string::npos);
  // The files box_blur.cl includes are expanded in place, each between #line directives.
  EXPECT_EQ(box.find("#include \"box_blur_bands.cl\""), std::string::npos);
  EXPECT_NE(box.find("#line 1 \"box_blur_bands.cl\""), std::string::npos);
  EXPECT_NE(box.find("FUSED_KERNEL"), std::string::npos);
  EXPECT_EQ(kernel_code_hash("box_blur.cl"), fnv1a64(eight_bit_code(kernel_code(box))));
  EXPECT_NE(kernel_code_hash("box_blur.cl"), kernel_code_hash("sobel.cl"));
  EXPECT_EQ(Context().source_hash("sobel.cl"), kernel_code_hash("sobel.cl"));
}

// GPU keys leave the CPU variants' files out; 16-bit keys take the 16-bit forms in.
TEST(KernelCode, KeyScopes) {
  const std::string bilateral = full_kernel_source("bilateral.cl");
  ASSERT_NE(bilateral.find("#line 1 \"bilateral_cpu_rows.cl\""), std::string::npos);
  const CodeKeyScope gpu{.cpu_files = false}, gpu16{.cpu_files = false, .sixteen_bit = true};
  EXPECT_NE(kernel_code_hash("bilateral.cl", gpu), kernel_code_hash("bilateral.cl"));
  EXPECT_NE(kernel_code_hash("bilateral.cl", gpu16), kernel_code_hash("bilateral.cl", gpu));
  EXPECT_EQ(kernel_code_hash("bilateral.cl", {.sixteen_bit = true}), fnv1a64(kernel_code(bilateral)));
  // Without CPU-only includes or 16-bit blocks, a file keys the same in every scope.
  EXPECT_EQ(kernel_code_hash("guide_samples.cl", gpu16), kernel_code_hash("guide_samples.cl"));
  // On PoCL (a CPU) the key takes the whole file.
  const Context cpu("pocl");
  EXPECT_EQ(cpu.source_hash("bilateral.cl"), kernel_code_hash("bilateral.cl"));
  EXPECT_EQ(cpu.source_hash("bilateral.cl", true), kernel_code_hash("bilateral.cl", {.sixteen_bit = true}));
}

TEST(Borders, IndexMapping) {
  // reflect101 on n=4, i = -6..5: 0 1 2 3 2 1 | 0 1 2 3 | 2 1 (reflecting again past the far edge).
  const int expected[] = {0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1};
  for (int i = -6; i < 6; ++i) EXPECT_EQ(border_index(i, 4, BorderMode::reflect101), expected[i + 6]) << i;
  EXPECT_EQ(border_index(-5, 4, BorderMode::replicate), 0);
  EXPECT_EQ(border_index(9, 4, BorderMode::replicate), 3);
  EXPECT_EQ(border_index(-1, 4, BorderMode::constant), -1);
  EXPECT_EQ(border_index(4, 4, BorderMode::constant), -1);
  EXPECT_EQ(border_index(-7, 1, BorderMode::reflect101), 0);
  EXPECT_EQ(border_index(2, 4, BorderMode::constant), 2);
}

TEST(Borders, Parse) {
  EXPECT_EQ(parse_border("replicate").mode, BorderMode::replicate);
  EXPECT_EQ(parse_border("reflect101").mode, BorderMode::reflect101);
  EXPECT_EQ(parse_border("constant").value, 0);
  EXPECT_EQ(parse_border("constant=200").value, 200);
  EXPECT_EQ(parse_border("constant=65535").value, 65535);  // 16-bit samples' constant; calls check their range
  EXPECT_THROW(parse_border("constant=65536"), std::invalid_argument);
  EXPECT_THROW(check_border(parse_border("constant=256")), std::invalid_argument);
  EXPECT_NO_THROW(check_border(parse_border("constant=256"), SampleType::u16));
  EXPECT_THROW(parse_border("constant=x"), std::invalid_argument);
  EXPECT_THROW(parse_border("wrap"), std::invalid_argument);
}

// Both ways of waiting return only once the call's last command has completed, with its result there.
TEST(WaitFor, ReturnsOnlyWhenTheLastCommandHasCompleted) {
  Context ctx;
  const std::string source =
      "__kernel void sum_to(__global int* out, int n) {"
      "  int s = 0; for (int i = 1; i <= n; ++i) s += i % 7; out[get_global_id(0)] = s + (int)get_global_id(0); }";
  cl::Program& p = ctx.program_from_source("wait_test.cl", source, "");
  cl::Kernel k(p, "sum_to");
  for (WaitMode mode : {WaitMode::finish, WaitMode::spin}) {
    const int n = 200000 + int(mode == WaitMode::spin);
    std::vector<int> host(64, -1);
    cl::Buffer buf(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(int), host.data());
    k.setArg(0, buf);
    k.setArg(1, n);
    std::vector<cl::Event> events(2);
    ctx.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(host.size()), cl::NullRange, nullptr, &events[0]);
    ctx.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(host.size()), cl::NullRange, nullptr, &events[1]);
    wait_for(ctx, events, mode);
    for (const cl::Event& e : events) EXPECT_EQ(e.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
    ctx.queue().enqueueReadBuffer(buf, CL_TRUE, 0, host.size() * sizeof(int), host.data());
    int expected = 0;
    for (int i = 1; i <= n; ++i) expected += i % 7;
    for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(host[i], expected + int(i)) << i;
  }
}

// Profiling off sends commands to a second queue; the switch must keep them in order (the kernel
// after it reads what the one before it wrote) and the plain queue's commands have no kernel times.
TEST(ContextProfiling, SwitchingQueuesKeepsCommandsInOrder) {
  Context ctx;
  const std::string source =
      "__kernel void slow_fill(__global int* out, int n) {"
      "  int s = 0; for (int i = 1; i <= n; ++i) s += i % 5; out[get_global_id(0)] = s + (int)get_global_id(0); }"
      "__kernel void add_one(__global int* out) { out[get_global_id(0)] += 1; }";
  cl::Program& p = ctx.program_from_source("profiling_test.cl", source, "");
  cl::Kernel fill(p, "slow_fill"), add(p, "add_one");
  const int n = 300000;
  int expected = 0;
  for (int i = 1; i <= n; ++i) expected += i % 5;
  std::vector<int> host(64, -1);
  cl::Buffer buf(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(int), host.data());
  fill.setArg(0, buf);
  fill.setArg(1, n);
  add.setArg(0, buf);
  ASSERT_TRUE(ctx.profiling());
  std::vector<cl::Event> timed(1), plain(1);
  ctx.queue().enqueueNDRangeKernel(fill, cl::NullRange, cl::NDRange(host.size()), cl::NullRange, nullptr, &timed[0]);
  ctx.set_profiling(false);
  EXPECT_FALSE(ctx.profiling());
  ctx.queue().enqueueNDRangeKernel(add, cl::NullRange, cl::NDRange(host.size()), cl::NullRange, nullptr, &plain[0]);
  wait_for(ctx, plain, WaitMode::spin);
  ctx.queue().enqueueReadBuffer(buf, CL_TRUE, 0, host.size() * sizeof(int), host.data());
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(host[i], expected + int(i) + 1) << i;
  EXPECT_TRUE(std::isnan(kernel_milliseconds(plain)));
  EXPECT_GE(kernel_milliseconds(timed), 0.0);
  // And back: profiled again.
  ctx.set_profiling(true);
  ctx.queue().enqueueNDRangeKernel(add, cl::NullRange, cl::NDRange(host.size()), cl::NullRange, nullptr, &timed[0]);
  EXPECT_FALSE(std::isnan(kernel_milliseconds(timed)));
  ctx.queue().enqueueReadBuffer(buf, CL_TRUE, 0, host.size() * sizeof(int), host.data());
  EXPECT_EQ(host[5], expected + 5 + 2);
}

// Image memory is aligned for a CPU device to use in place, and the size constructor still zero-fills.
TEST(HostImages, AreAlignedAndZeroFilled) {
  for (int w : {1, 3, 640}) {
    const Image image(w, 7, 4);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(image.data.data()) % HostAlignedAllocator<std::uint8_t>::alignment, 0u);
    EXPECT_TRUE(std::all_of(image.data.begin(), image.data.end(), [](std::uint8_t v) { return v == 0; }));
  }
}

// Host memory under a kernel: used in place on a CPU device when aligned (no copy either way), else copied; both
// give the kernel's result at the host address after read_to_host, and an input's memory is only read.
TEST(HostBuffers, ACpuDeviceWorksInTheHostMemoryItself) {
  Context ctx;
  cl::Program& p = ctx.program_from_source("host_buffer_test.cl",
                                           "__kernel void plus_one(__global const int* in, __global int* out) {"
                                           "  size_t i = get_global_id(0); out[i] = in[i] + 1; }",
                                           "");
  cl::Kernel k(p, "plus_one");
  constexpr std::size_t n = 1000;
  Image memory(int(n) * 4 + 64, 2, 1);  // 128-byte aligned; the second row holds the output
  for (const std::size_t shift : {std::size_t(0), std::size_t(4)}) {  // aligned, then 4 bytes off
    SCOPED_TRACE(shift);
    int* in = reinterpret_cast<int*>(memory.row(0) + shift);
    int* out = reinterpret_cast<int*>(memory.row(1) + shift);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = int(i * 7919 % 1000003) - 500000;
      out[i] = -1;  // poison
    }
    const cl::Buffer in_buf = buffer_over_host(ctx, in, n * 4, true);
    const cl::Buffer out_buf = buffer_over_host(ctx, out, n * 4, false);
    const bool in_place = ctx.works_in_host_memory() && shift % kHostBufferAlignment == 0;
    for (const cl::Buffer* b : {&in_buf, &out_buf}) {
      void* host = nullptr;
      ASSERT_EQ(b->getInfo(CL_MEM_HOST_PTR, &host), CL_SUCCESS);
      EXPECT_EQ(host != nullptr, in_place);
    }
    k.setArg(0, in_buf);
    k.setArg(1, out_buf);
    ASSERT_EQ(ctx.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(n)), CL_SUCCESS);
    read_to_host(ctx, out_buf, out, n * 4);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], in[i] + 1) << i;
      ASSERT_EQ(in[i], int(i * 7919 % 1000003) - 500000) << i;
    }
  }
}

// The disk cache's file layout: a whole file gives its binary back, a file cut short or changed gives nothing, and a
// Context meeting such a file rebuilds the program and writes the file again.

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> out(n);
  for (auto& b : out) b = static_cast<unsigned char>(rng());
  return out;
}

TEST(ProgramCacheFile, WholeFileGivesItsBinaryBack) {
  const std::uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE(seed);
  const auto binary = random_bytes(1000 + seed % 1000, seed);
  const auto file = program_cache_file(binary);
  EXPECT_EQ(file.size(), binary.size() + 24);
  EXPECT_EQ(binary_from_program_cache_file(file), binary);
}

TEST(ProgramCacheFile, CutOrChangedFileIsRejected) {
  const std::uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE(seed);
  const auto binary = random_bytes(300, seed);
  const auto file = program_cache_file(binary);
  for (std::size_t cut : {std::size_t(0), std::size_t(7), std::size_t(24), file.size() / 2, file.size() - 1}) {
    SCOPED_TRACE(fmt::format("cut to {} bytes", cut));
    EXPECT_FALSE(binary_from_program_cache_file({file.begin(), file.begin() + std::ptrdiff_t(cut)}));
  }
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20; ++i) {
    auto changed = file;
    const std::size_t at = rng() % changed.size();
    changed[at] ^= static_cast<unsigned char>(1 + rng() % 255);
    EXPECT_FALSE(binary_from_program_cache_file(changed)) << "byte " << at << " changed";
  }
  auto longer = file;
  longer.push_back(0);
  EXPECT_FALSE(binary_from_program_cache_file(longer)) << "a byte appended";
  // The bare binary, as the cache wrote it before it had a header.
  EXPECT_FALSE(binary_from_program_cache_file(binary));
}

TEST(ProgramCacheFile, ContextRebuildsACutOrChangedCacheFile) {
  // OpenCL first, under the outer XDG_CACHE_HOME: PoCL takes its own cache directory from it once.
  ASSERT_FALSE(list_devices().empty());
  const fs::path dir = fs::temp_directory_path() / fmt::format("clf-cache-file-{}", ::getpid());
  fs::remove_all(dir);
  ScopedEnv xdg("XDG_CACHE_HOME", dir.c_str());
  ScopedEnv on("CLFILTERS_NO_DISK_CACHE", "0");
  const std::string source = kAddOneSource;
  fs::path bin;
  {
    Context ctx;
    ctx.program_from_source("cache_file_test.cl", source, "");
  }
  for (const auto& f : fs::directory_iterator(dir / "clfilters" / "programs"))
    if (f.path().extension() == ".bin") bin = f.path();
  ASSERT_FALSE(bin.empty());
  const std::string whole = testing::read_file(bin);
  const auto binary = binary_from_program_cache_file({whole.begin(), whole.end()});
  ASSERT_TRUE(binary) << "the cache file has no valid header";

  // Cut short, then one byte of the binary changed: each time the program still works and the file is whole again.
  const std::string changed = [&] {
    std::string s = whole;
    s[s.size() - 1 - s.size() / 3] ^= 0x5A;
    return s;
  }();
  for (const std::string& bad : {whole.substr(0, whole.size() / 2), changed}) {
    testing::write_file(bin, bad);
    Context ctx;
    expect_adds_one(ctx, ctx.program_from_source("cache_file_test.cl", source, ""));
    const std::string after = testing::read_file(bin);
    EXPECT_TRUE(binary_from_program_cache_file({after.begin(), after.end()})) << "the cache file was not rewritten";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace clf
