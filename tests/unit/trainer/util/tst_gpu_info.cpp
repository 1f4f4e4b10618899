// GPU discovery without linking CUDA (trainer/util/gpu.h): the peak-FLOPs table, the CUDA driver API and NVML
// loaded with dlopen, and the self-check's GPU keys.
//
// This machine has no GPU and no NVIDIA driver (no libcuda.so.1, no libnvidia-ml.so.1), so the real libraries
// cannot be exercised here: the NVML sampling tests run against FAKE libnvidia-ml builds (fake_nvml.c, built
// by CMake in three variants: the _v3 process call with the v2 struct, the legacy unversioned call with the v1
// struct, and an R535-style _v3 that writes 32-byte entries). On a machine with a driver the "no driver" checks
// turn into sanity checks of what the driver reports.
#include "test_paths.h"
#include "util/gpu.h"

#include <QProcess>
#include <QTest>
#include <atomic>
#include <dlfcn.h>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>
#include <vector>

using traindeck::util::cudaDevices;
using traindeck::util::cudaDriverVersion;
using traindeck::util::gpuPeakFlops;
using traindeck::util::Nvml;

namespace {

bool haveLibrary(const char* name)
{
    void* lib = ::dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (lib)
        ::dlclose(lib);
    return lib != nullptr;
}

struct SelfCheck {
    int exitCode = -1;
    nlohmann::json json;
    QByteArray err;
};

// Runs `traindeck-trainer self-check`; `fakeCuda` puts the fake libcuda.so.1 first on LD_LIBRARY_PATH.
SelfCheck runSelfCheck(const QString& nvmlLibrary = {}, bool fakeCuda = false, bool fakeCudaNoDevice = false)
{
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.remove("TRAINDECK_NVML_LIBRARY");
    if (!nvmlLibrary.isEmpty())
        env.insert("TRAINDECK_NVML_LIBRARY", nvmlLibrary);
    if (fakeCuda) {
        const QString old = env.value("LD_LIBRARY_PATH");
        env.insert("LD_LIBRARY_PATH", QString::fromUtf8(FAKE_CUDA_DIR) + (old.isEmpty() ? QString() : ":" + old));
        if (fakeCudaNoDevice)
            env.insert("FAKE_CUDA_NO_DEVICE", "1");
    }
    p.setProcessEnvironment(env);
    p.start(QString::fromUtf8(TRAINDECK_TRAINER), {QStringLiteral("self-check")});
    SelfCheck r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitCode();
    r.err = p.readAllStandardError();
    r.json = nlohmann::json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
    return r;
}

QString str(const nlohmann::json& j)
{
    return j.is_string() ? QString::fromStdString(j.get<std::string>()) : QString();
}

} // namespace

class TestGpuInfo : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void peakFlops_data();
    void peakFlops();
    void peakFlopsMostSpecific();
    void cudaWithoutDriver();
    void nvmlMissingLibrary();
    void nvmlLibraryWithoutSymbols();
    void nvmlInitFailure();
    void nvmlFakeSample_data();
    void nvmlFakeSample();
    void nvmlConcurrentSampling();
    void nvmlInstanceFromEnvironment();
    void selfCheckKeys();
    void selfCheckWithFakeDriver();
};

void TestGpuInfo::peakFlops_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<double>("expected"); // -1: nullopt
    // Names as the driver reports them (cuDeviceGetName / nvidia-smi).
    QTest::addRow("H200 bf16") << "NVIDIA H200"
                               << "bf16" << 989.4e12;
    QTest::addRow("H200 fp32") << "NVIDIA H200"
                               << "fp32" << 66.9e12;
    QTest::addRow("H200 fp16") << "NVIDIA H200"
                               << "fp16" << 989.4e12;
    QTest::addRow("H200 NVL") << "NVIDIA H200 NVL"
                              << "bf16" << 835.5e12;
    QTest::addRow("GH200 (contains H200)") << "NVIDIA GH200 480GB"
                                           << "bf16" << 989.4e12;
    QTest::addRow("H20 (not H200)") << "NVIDIA H20"
                                    << "bf16" << 148e12;
    QTest::addRow("H100 SXM") << "NVIDIA H100 80GB HBM3"
                              << "bf16" << 989.4e12;
    QTest::addRow("H100 PCIe") << "NVIDIA H100 PCIe"
                               << "bf16" << 756.5e12;
    QTest::addRow("H100 PCIe fp32") << "NVIDIA H100 PCIe"
                                    << "fp32" << 51.2e12;
    QTest::addRow("H100 NVL") << "NVIDIA H100 NVL"
                              << "bf16" << 835.5e12;
    QTest::addRow("A100 SXM 80GB fp32") << "NVIDIA A100-SXM4-80GB"
                                        << "fp32" << 19.5e12;
    QTest::addRow("A100 PCIe 40GB fp32") << "NVIDIA A100-PCIE-40GB"
                                         << "fp32" << 19.5e12;
    QTest::addRow("A100 80GB PCIe bf16") << "NVIDIA A100 80GB PCIe"
                                         << "bf16" << 312e12;
    QTest::addRow("A800") << "NVIDIA A800-SXM4-80GB"
                          << "bf16" << 312e12;
    QTest::addRow("A10 (not A100)") << "NVIDIA A10"
                                    << "bf16" << 125e12;
    QTest::addRow("A10G unknown") << "NVIDIA A10G"
                                  << "bf16" << -1.0;
    QTest::addRow("A30") << "NVIDIA A30"
                         << "bf16" << 165e12;
    QTest::addRow("A40") << "NVIDIA A40"
                         << "bf16" << 149.7e12;
    QTest::addRow("L40S") << "NVIDIA L40S"
                          << "bf16" << 362.05e12;
    QTest::addRow("L40") << "NVIDIA L40"
                         << "bf16" << 181.05e12;
    QTest::addRow("L4") << "NVIDIA L4"
                        << "bf16" << 121e12;
    QTest::addRow("B200") << "NVIDIA B200"
                          << "bf16" << 2250e12;
    QTest::addRow("V100 bf16 unsupported") << "Tesla V100-SXM2-16GB"
                                           << "bf16" << 0.0;
    QTest::addRow("V100 fp16") << "Tesla V100-SXM2-16GB"
                               << "fp16" << 125e12;
    QTest::addRow("V100 PCIe fp32") << "Tesla V100-PCIE-32GB"
                                    << "fp32" << 14e12;
    QTest::addRow("T4 bf16 unsupported") << "Tesla T4"
                                         << "bf16" << 0.0;
    QTest::addRow("RTX 4090") << "NVIDIA GeForce RTX 4090"
                              << "bf16" << 165.2e12;
    QTest::addRow("RTX 3090") << "NVIDIA GeForce RTX 3090"
                              << "fp32" << 35.6e12;
    QTest::addRow("RTX A6000") << "NVIDIA RTX A6000"
                               << "bf16" << 154.8e12;
    QTest::addRow("RTX 6000 Ada") << "NVIDIA RTX 6000 Ada Generation"
                                  << "bf16" << 364.2e12;
    QTest::addRow("lower case") << "nvidia h200"
                                << "bf16" << 989.4e12;
    QTest::addRow("upper case + precision case") << "NVIDIA H100 PCIE"
                                                 << "BF16" << 756.5e12;
    QTest::addRow("unknown device") << "NVIDIA GeForce GTX 1080"
                                    << "fp32" << -1.0;
    QTest::addRow("not NVIDIA") << "AMD Instinct MI300X"
                                << "bf16" << -1.0;
    QTest::addRow("empty name") << ""
                                << "bf16" << -1.0;
    QTest::addRow("unknown precision") << "NVIDIA H200"
                                       << "int8" << -1.0;
}

void TestGpuInfo::peakFlops()
{
    QFETCH(QString, name);
    QFETCH(QString, precision);
    QFETCH(double, expected);
    const auto peak = gpuPeakFlops(name.toStdString(), precision.toStdString());
    if (expected < 0) {
        QVERIFY2(!peak, qPrintable(QString::number(peak.value_or(0))));
        return;
    }
    QVERIFY(peak);
    if (expected == 0)
        QCOMPARE(*peak, 0.0);
    else
        QCOMPARE(*peak, expected);
}

void TestGpuInfo::peakFlopsMostSpecific()
{
    QCOMPARE(*gpuPeakFlops("NVIDIA H200", "bf16"), 989.4e12);
    QVERIFY(*gpuPeakFlops("NVIDIA H100 PCIe", "bf16") != *gpuPeakFlops("NVIDIA H100 80GB HBM3", "bf16"));
    QVERIFY(*gpuPeakFlops("NVIDIA H100 PCIe", "bf16") < *gpuPeakFlops("NVIDIA H100 SXM5 80GB", "bf16"));
    QCOMPARE(*gpuPeakFlops("NVIDIA A100-SXM4-40GB", "fp32"), 19.5e12);
    QVERIFY(gpuPeakFlops("Tesla V100-SXM2-32GB", "bf16").has_value());
    QCOMPARE(*gpuPeakFlops("Tesla V100-SXM2-32GB", "bf16"), 0.0); // known device, no bf16
    QVERIFY(!gpuPeakFlops("Imaginary GPU 9000", "bf16"));
}

void TestGpuInfo::cudaWithoutDriver()
{
    std::string error = "stale";
    const auto devices = cudaDevices(&error);
    if (!haveLibrary("libcuda.so.1")) {
        QVERIFY(devices.empty());
        QVERIFY2(QString::fromStdString(error).contains("libcuda.so.1"), error.c_str());
        QVERIFY(cudaDriverVersion().empty());
        QVERIFY(cudaDevices().empty()); // no error pointer: still fine
        return;
    }
    // A machine with a driver: whatever it reports must be consistent.
    QVERIFY(!cudaDriverVersion().empty());
    if (devices.empty())
        QVERIFY2(!error.empty(), "no devices and no reason");
    for (size_t i = 0; i < devices.size(); ++i) {
        QCOMPARE(devices[i].index, int(i));
        QVERIFY(!devices[i].name.empty());
        QVERIFY(devices[i].memoryTotalBytes > 0);
        QVERIFY(devices[i].computeMajor >= 3);
        QCOMPARE(devices[i].pciBusId.size(), size_t(12)); // "0000:19:00.0"
    }
}

void TestGpuInfo::nvmlMissingLibrary()
{
    const std::string path = "/nonexistent/dir/libnvidia-ml.so.1";
    Nvml nvml(path);
    QVERIFY(!nvml.available());
    QVERIFY2(QString::fromStdString(nvml.error()).contains(QString::fromStdString(path)), nvml.error().c_str());
    QVERIFY(nvml.driverVersion().empty());
    QVERIFY(!nvml.sample("0000:19:00.0", ::getpid()));
}

void TestGpuInfo::nvmlLibraryWithoutSymbols()
{
    Nvml nvml("libm.so.6"); // loads fine, has none of NVML's symbols
    QVERIFY(!nvml.available());
    const QString error = QString::fromStdString(nvml.error());
    QVERIFY2(error.contains("libm.so.6") && error.contains("nvmlInit_v2"), qPrintable(error));
    QVERIFY(nvml.driverVersion().empty());
    QVERIFY(!nvml.sample("0000:19:00.0", ::getpid()));
}

void TestGpuInfo::nvmlInitFailure()
{
    qputenv("FAKE_NVML_INIT_FAIL", "1");
    Nvml nvml(FAKE_NVML_LIBRARY);
    qunsetenv("FAKE_NVML_INIT_FAIL");
    QVERIFY(!nvml.available());
    const QString error = QString::fromStdString(nvml.error());
    QVERIFY2(error.contains("nvmlInit_v2 failed: 9") && error.contains("Driver Not Loaded"), qPrintable(error));
    QVERIFY(!nvml.sample("0000:19:00.0", ::getpid()));
}

void TestGpuInfo::nvmlFakeSample_data()
{
    QTest::addColumn<QString>("library");
    QTest::addColumn<double>("power");
    QTest::addRow("_v3, v2 struct") << FAKE_NVML_LIBRARY << -1.0;
    QTest::addRow("unversioned, v1 struct") << FAKE_NVML_LEGACY_LIBRARY << 412.345;
    QTest::addRow("R535 _v3, 32-byte struct") << FAKE_NVML_R535_LIBRARY << -1.0;
}

void TestGpuInfo::nvmlFakeSample()
{
    QFETCH(QString, library);
    QFETCH(double, power);
    Nvml nvml(library.toStdString());
    QVERIFY2(nvml.available(), nvml.error().c_str());
    QVERIFY(nvml.error().empty());
    QCOMPARE(QString::fromStdString(nvml.driverVersion()), QStringLiteral("999.99.99-fake"));

    const auto s = nvml.sample("0000:19:00.0", ::getpid());
    QVERIFY(s);
    QCOMPARE(s->utilisationPercent, 87.0);
    QCOMPARE(s->deviceMemoryUsedMiB, 50000.0);
    QCOMPARE(s->memoryUsedMiB, 12345.0); // this process's entry, after an INSUFFICIENT_SIZE round trip
    QCOMPARE(s->powerWatts, power);

    const auto other = nvml.sample("00000000:19:00.0", 4242); // NVML's 8-digit domain form, the other process
    QVERIFY(other);
    QCOMPARE(other->memoryUsedMiB, 1000.0);
    const auto absent = nvml.sample("0000:19:00.0", 999999); // not on the GPU: -1
    QVERIFY(absent);
    QCOMPARE(absent->memoryUsedMiB, -1.0);
    QVERIFY(!nvml.sample("0000:3b:00.0", ::getpid())); // no such device
    QVERIFY(!nvml.sample("", ::getpid()));
}

void TestGpuInfo::nvmlConcurrentSampling()
{
    Nvml nvml(FAKE_NVML_LIBRARY);
    QVERIFY(nvml.available());
    std::atomic<int> good{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 500; ++i)
                if (auto s = nvml.sample("0000:19:00.0", ::getpid()); s && s->memoryUsedMiB == 12345.0)
                    ++good;
        });
    for (auto& t : threads)
        t.join();
    QCOMPARE(good.load(), 2000);
}

void TestGpuInfo::nvmlInstanceFromEnvironment()
{
    // The first (and only) call of instance() in this process: it honours TRAINDECK_NVML_LIBRARY.
    qputenv("TRAINDECK_NVML_LIBRARY", FAKE_NVML_LIBRARY);
    Nvml& nvml = Nvml::instance();
    qunsetenv("TRAINDECK_NVML_LIBRARY");
    QCOMPARE(&nvml, &Nvml::instance());
    QVERIFY2(nvml.available(), nvml.error().c_str());
    QCOMPARE(QString::fromStdString(nvml.driverVersion()), QStringLiteral("999.99.99-fake"));
    QCOMPARE(nvml.sample("0000:19:00.0", ::getpid())->utilisationPercent, 87.0);
}

void TestGpuInfo::selfCheckKeys()
{
    // Default NVML library: on this machine (no driver) every GPU key is null or empty.
    SelfCheck r = runSelfCheck();
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.json.is_object(), r.err.constData());
    const auto& j = r.json;
    // The keys the backend's node check and traindeck-cli deploy read are still there.
    QVERIFY(j["trainer"].is_string() && j["libtorch"].is_string());
    QVERIFY(j["cuda"].is_object() && j["cuda"].contains("available") && j["cuda"].contains("devices"));
    QVERIFY(j.contains("nccl") && j.contains("mpi") && j.contains("blas") && j.contains("devices"));
    QVERIFY(j.contains("cuda_driver"));
    QVERIFY(j["gpus"].is_array());
    QVERIFY(j["nvml"].is_object());
    QVERIFY(j["nvml"]["available"].is_boolean());
    QVERIFY(j["nvml"].contains("driver") && j["nvml"].contains("error"));
    if (!haveLibrary("libcuda.so.1")) {
        QVERIFY(j["cuda_driver"].is_null());
        QVERIFY(j["gpus"].empty());
        QVERIFY(str(j["gpus_error"]).contains("libcuda.so.1"));
    }
    for (const auto& g : j["gpus"]) {
        for (const char* key :
             {"index", "name", "pci_bus_id", "memory_total_mb", "compute_capability", "peak_bf16_tflops"})
            QVERIFY2(g.contains(key), key);
    }
    if (!haveLibrary("libnvidia-ml.so.1")) {
        QCOMPARE(j["nvml"]["available"].get<bool>(), false);
        QVERIFY(j["nvml"]["driver"].is_null());
        QVERIFY2(str(j["nvml"]["error"]).contains("libnvidia-ml.so.1"), j["nvml"].dump().c_str());
    }

    // TRAINDECK_NVML_LIBRARY: a missing path is named in the error ...
    r = runSelfCheck(QStringLiteral("/nonexistent/libnvidia-ml-test.so"));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json["nvml"]["available"].get<bool>(), false);
    QVERIFY(str(r.json["nvml"]["error"]).contains("/nonexistent/libnvidia-ml-test.so"));
    // ... and the fake library is reported as available, with its driver version.
    r = runSelfCheck(QString::fromUtf8(FAKE_NVML_LIBRARY));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json["nvml"]["available"].get<bool>(), true);
    QCOMPARE(str(r.json["nvml"]["driver"]), QStringLiteral("999.99.99-fake"));
    QVERIFY(r.json["nvml"]["error"].is_null());
}

void TestGpuInfo::selfCheckWithFakeDriver()
{
    // The fake libcuda.so.1 (two devices) and the fake NVML: the GPU listing as a GPU node would print it.
    SelfCheck r = runSelfCheck(QString::fromUtf8(FAKE_NVML_LIBRARY), true);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.json.is_object(), r.err.constData());
    const auto& j = r.json;
    QCOMPARE(str(j["cuda_driver"]), QStringLiteral("13.0"));
    QVERIFY(j["gpus_error"].is_null());
    QCOMPARE(j["gpus"].size(), size_t(2));
    const auto& h200 = j["gpus"][0];
    QCOMPARE(h200["index"].get<int>(), 0);
    QCOMPARE(str(h200["name"]), QStringLiteral("NVIDIA H200"));
    QCOMPARE(str(h200["pci_bus_id"]), QStringLiteral("0000:19:00.0"));
    QCOMPARE(h200["memory_total_mb"].get<qint64>(), qint64(143771));
    QCOMPARE(str(h200["compute_capability"]), QStringLiteral("9.0"));
    QCOMPARE(h200["peak_bf16_tflops"].get<double>(), 989.4);
    QCOMPARE(j["gpus"][1]["index"].get<int>(), 1);
    QCOMPARE(j["gpus"][1]["peak_bf16_tflops"].get<double>(), 756.5); // H100 PCIe, not SXM
    QCOMPARE(j["nvml"]["available"].get<bool>(), true);

    // A driver without devices: an empty list and the reason.
    r = runSelfCheck({}, true, true);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.json["gpus"].is_array() && r.json["gpus"].empty());
    QCOMPARE(str(r.json["gpus_error"]), QStringLiteral("cuInit failed: 100 (CUDA_ERROR_NO_DEVICE)"));
    QCOMPARE(str(r.json["cuda_driver"]), QStringLiteral("13.0"));
}

QTEST_GUILESS_MAIN(TestGpuInfo)
#include "tst_gpu_info.moc"
