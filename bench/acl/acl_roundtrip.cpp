// Compresses one ACL raw clip (.acl.sjson) with ACL's default settings, as its acl_compressor does
// (recommended pre-processing, qvvf error metric, default compression level), then decompresses every
// sample and writes the decoded local poses as text, so one evaluator can measure ACL's output and
// rotsig's side by side. Built by bench/acl.js; not part of rotsig.
//
//   acl_roundtrip <clip.acl.sjson> <decoded.txt>
//
// stdout (one line of JSON): compressed bytes, ACL's own max error (its metric, clip units) and the
// sample count. decoded.txt: "samples tracks rate", then one line per sample and track:
// qx qy qz qw tx ty tz sx sy sz (float32 values printed with 9 significant digits, exact).
#include "acl/compression/compress.h"
#include "acl/compression/pre_process.h"
#include "acl/compression/track_error.h"
#include "acl/compression/transform_error_metrics.h"
#include "acl/core/ansi_allocator.h"
#include "acl/decompression/decompress.h"
#include "acl/io/clip_reader.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace acl;

struct pose_writer final : public track_writer
{
	std::vector<float>& out;
	explicit pose_writer(std::vector<float>& out_) : out(out_) {}
	void RTM_SIMD_CALL write_rotation(uint32_t i, rtm::quatf_arg0 q)
	{
		out[i * 10 + 0] = rtm::quat_get_x(q);
		out[i * 10 + 1] = rtm::quat_get_y(q);
		out[i * 10 + 2] = rtm::quat_get_z(q);
		out[i * 10 + 3] = rtm::quat_get_w(q);
	}
	void RTM_SIMD_CALL write_translation(uint32_t i, rtm::vector4f_arg0 t)
	{
		out[i * 10 + 4] = rtm::vector_get_x(t);
		out[i * 10 + 5] = rtm::vector_get_y(t);
		out[i * 10 + 6] = rtm::vector_get_z(t);
	}
	void RTM_SIMD_CALL write_scale(uint32_t i, rtm::vector4f_arg0 s)
	{
		out[i * 10 + 7] = rtm::vector_get_x(s);
		out[i * 10 + 8] = rtm::vector_get_y(s);
		out[i * 10 + 9] = rtm::vector_get_z(s);
	}
};

int main(int argc, char** argv)
{
	if (argc != 3)
	{
		std::fprintf(stderr, "usage: acl_roundtrip <clip.acl.sjson> <decoded.txt>\n");
		return 2;
	}
	std::ifstream in(argv[1], std::ios::binary);
	std::stringstream buffer;
	buffer << in.rdbuf();
	const std::string text = buffer.str();

	ansi_allocator allocator;
	clip_reader reader(allocator, text.c_str(), text.size());
	sjson_raw_clip clip;
	if (reader.get_file_type() != sjson_file_type::raw_clip || !reader.read_raw_clip(clip))
	{
		const clip_reader_error err = reader.get_error();
		std::fprintf(stderr, "cannot read %s: line %u column %u: %s\n", argv[1], err.line, err.column, err.get_description());
		return 1;
	}

	qvvf_transform_error_metric metric;
	compression_settings settings = get_default_compression_settings();
	settings.error_metric = &metric;

	pre_process_settings_t pre;
	pre.actions = pre_process_actions::recommended;
	pre.precision_policy = pre_process_precision_policy::lossy;
	pre.error_metric = &metric;
	pre_process_track_list(allocator, pre, clip.track_list);

	output_stats stats;
	compressed_tracks* compressed = nullptr;
	const error_result result = compress_track_list(allocator, clip.track_list, settings, compressed, stats);
	if (!result.empty())
	{
		std::fprintf(stderr, "compression failed: %s\n", result.c_str());
		return 1;
	}

	decompression_context<default_transform_decompression_settings> context;
	context.initialize(*compressed);
	const track_error acl_error = calculate_compression_error(allocator, clip.track_list, context, metric);

	const uint32_t tracks = clip.track_list.get_num_tracks();
	const uint32_t samples = clip.track_list.get_num_samples_per_track();
	const float rate = clip.track_list.get_sample_rate();
	std::vector<float> pose(size_t(tracks) * 10, 0.0F);
	pose_writer writer(pose);
	FILE* out = std::fopen(argv[2], "w");
	if (out == nullptr)
	{
		std::fprintf(stderr, "cannot write %s\n", argv[2]);
		return 1;
	}
	std::fprintf(out, "%u %u %.9g\n", samples, tracks, rate);
	for (uint32_t s = 0; s < samples; ++s)
	{
		const float t = rtm::scalar_min(float(s) / rate, clip.track_list.get_duration());
		context.seek(t, sample_rounding_policy::nearest);
		context.decompress_tracks(writer);
		for (uint32_t i = 0; i < tracks; ++i)
		{
			const float* p = &pose[size_t(i) * 10];
			std::fprintf(out, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]);
		}
	}
	std::fclose(out);
	std::printf("{\"bytes\":%u,\"aclMaxError\":%.9g,\"samples\":%u,\"tracks\":%u,\"rate\":%.9g}\n", compressed->get_size(), acl_error.error, samples, tracks, rate);
	allocator.deallocate(compressed, compressed->get_size());
	return 0;
}
