#include <nlohmann/json.hpp>

#include "sieve/search.hpp"

namespace sieve {
namespace {

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string dump(const nlohmann::json& json) {
  // Chunk text is whatever the documents held: never fail on it.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string search_result_json(const SearchResult& result, std::string_view query, SearchMode mode) {
  nlohmann::json hits = nlohmann::json::array();
  for (const auto& hit : result.hits) {
    nlohmann::json metadata = nlohmann::json::object();
    for (const auto& [key, value] : hit.metadata) metadata[key] = value;
    nlohmann::json matches = nlohmann::json::array();
    for (const auto& [begin, end] : hit.matches) matches.push_back({begin, end});
    nlohmann::json snippet_matches = nlohmann::json::array();
    for (const auto& [begin, end] : hit.snippet_matches) snippet_matches.push_back({begin, end});
    nlohmann::json rerank_span = nullptr;
    if (hit.rerank_span) rerank_span = {hit.rerank_span->first, hit.rerank_span->second};
    hits.push_back({{"rank", hit.rank},
                    {"relevance", hit.relevance},
                    {"score", hit.score},
                    {"vector_score", optional_number(hit.vector_score)},
                    {"bm25_score", optional_number(hit.bm25_score)},
                    {"sparse_score", optional_number(hit.sparse_score)},
                    {"rerank_score", optional_number(hit.rerank_score)},
                    {"document_id", hit.document_id},
                    {"source", hit.source},
                    {"title", hit.title},
                    {"format", hit.format},
                    {"chunk_id", hit.chunk_id},
                    {"chunk_index", hit.chunk_index},
                    {"chunk_begin", hit.chunk_begin},
                    {"chunk_end", hit.chunk_end},
                    {"section", hit.section},
                    {"text", hit.text},
                    {"matches", matches},
                    {"snippet", hit.snippet},
                    {"snippet_matches", snippet_matches},
                    {"snippet_begin", hit.snippet_begin},
                    {"snippet_end", hit.snippet_end},
                    {"rerank_span", rerank_span},
                    {"metadata", metadata}});
  }
  return dump({{"query", std::string(query)},
               {"mode", to_string(mode)},
               {"used_ann", result.used_ann},
               {"seconds", result.seconds},
               {"hits", hits}});
}

std::string document_json(const DocumentView& document) {
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& [key, value] : document.metadata) metadata[key] = value;
  nlohmann::json sections = nlohmann::json::array();
  for (const auto& [begin, name] : document.sections) sections.push_back({{"begin", begin}, {"name", name}});
  return dump({{"id", document.id},
               {"source", document.source},
               {"title", document.title},
               {"format", document.format},
               {"metadata", metadata},
               {"begin", document.begin},
               {"end", document.end},
               {"length", document.length},
               {"chunks", document.chunks},
               {"sections", sections},
               {"text", document.text}});
}

std::string index_stats_json(const IndexStats& stats) {
  nlohmann::json sparse_model = nullptr;
  if (stats.sparse_model) {
    sparse_model = {{"name", stats.sparse_model->name},
                    {"path", stats.sparse_model->path},
                    {"onnx_sha256", stats.sparse_model->onnx_sha256},
                    {"vocabulary", stats.sparse_model->dimension},
                    {"pooling", stats.sparse_model->pooling}};
  }
  return dump({{"folder", stats.folder.string()},
               {"model",
                {{"name", stats.model.name},
                 {"path", stats.model.path},
                 {"onnx_sha256", stats.model.onnx_sha256},
                 {"dimension", stats.model.dimension},
                 {"pooling", stats.model.pooling},
                 {"normalize", stats.model.normalize}}},
               {"sparse_model", sparse_model},
               {"sparse_postings", stats.sparse_postings},
               {"chunk_tokens", stats.chunking.chunk_tokens},
               {"overlap_tokens", stats.chunking.overlap_tokens},
               {"late_chunking", stats.chunking.late_chunking},
               {"sources", stats.sources},
               {"documents", stats.documents},
               {"chunks", stats.chunks},
               {"database_bytes", stats.database_bytes},
               {"ann_bytes", stats.ann_bytes},
               {"ann_elements", stats.ann_elements},
               {"exact_threshold", stats.exact_threshold},
               {"vectors", to_string(stats.vectors)},
               {"graph_dimensions", stats.graph_dimensions},
               {"rescore", stats.rescore},
               {"ann_vector_bytes", stats.ann_vector_bytes},
               {"documents_by_format", stats.documents_by_format}});
}

std::string ingest_report_json(const IngestReport& report) {
  return dump({{"files_seen", report.files_seen},
               {"files_unchanged", report.files_unchanged},
               {"files_skipped", report.files_skipped},
               {"documents_added", report.documents_added},
               {"documents_unchanged", report.documents_unchanged},
               {"documents_removed", report.documents_removed},
               {"files_removed", report.files_removed},
               {"removed", report.removed},
               {"chunks_added", report.chunks_added},
               {"chunks_removed", report.chunks_removed},
               {"seconds", report.seconds},
               {"files_by_format", report.files_by_format},
               {"skipped_by_reason", report.skipped_by_reason},
               {"skipped", report.skipped},
               {"warnings", report.warnings},
               {"errors", report.errors}});
}

std::string check_report_json(const CheckReport& report) {
  return dump({{"ok", report.ok()}, {"problems", report.problems}, {"notes", report.notes}});
}

}  // namespace sieve
