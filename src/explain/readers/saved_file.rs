//! A saved file the library reading it refuses because another release of
//! that library wrote it, or (a TensorRT engine) because it was built on a
//! GPU of another compute capability. Each reader states the refusal in its
//! own words, and most name both versions: TensorRT's engine header (`Current Version: 96,
//! Serialized Engine Version: 97`), onnxruntime's IR version (`Unsupported
//! model IR version: 10, max supported IR version: 9`), torch's archive format
//! (`Attempted to read a PyTorch file with version 5, but the maximum supported
//! version for reading is 2`), Treelite's checkpoint. The file is intact: the
//! fix is to make reader and writer agree, and which way depends on the format.

use super::{Context, Reading, text};

pub const CAUSE: &str = "saved-file-from-other-library-version";
/// The same file refused for the GPU it was built on, not the release.
pub const OTHER_GPU: &str = "saved-file-built-for-other-gpu";

/// One reader's refusal: the words that mark it (lowercased) and what it means.
struct Refusal {
    marker: &'static str,
    cause: &'static str,
    /// The distribution that reads the file, as the node lists it.
    reader: &'static str,
    /// What was refused, in words.
    said: &'static str,
    /// The versions the message gives, where its wording has them.
    versions: Option<Versions>,
    fix: &'static str,
}

/// Where a refusal states the reader's and the writer's versions, and how
/// to say them: `{read}` and `{written}` in `said` stand for the versions
/// after `read_after` and `written_after`.
struct Versions {
    read_after: &'static str,
    written_after: &'static str,
    said: &'static str,
}

const TENSORRT_GPU_FIX: &str = "rebuild the engine on the GPU that runs it (trtexec --onnx=model.onnx --saveEngine=model.engine, or the project's export step); an engine runs only on GPUs of the compute capability it was built on unless built with a hardware-compatibility level (trtexec --hardwareCompatibilityLevel=ampere+, Ampere and newer)";

const TENSORRT_FIX: &str = "rebuild the engine on the node that runs it, with the TensorRT installed there (trtexec --onnx=model.onnx --saveEngine=model.engine, or the project's export step); an engine is tied to one TensorRT release and one GPU unless built with the version- or hardware-compatible flag";

const REFUSALS: [Refusal; 8] = [
    Refusal {
        marker: "version tag does not match",
        cause: CAUSE,
        reader: "tensorrt",
        said: "TensorRT refused the engine: another TensorRT release built it",
        versions: Some(Versions {
            read_after: "current version:",
            written_after: "serialized engine version:",
            said: "its serialization tag is {written}, this TensorRT's {read}",
        }),
        fix: TENSORRT_FIX,
    },
    Refusal {
        marker: "the engine plan file is not compatible with this version of tensorrt",
        cause: CAUSE,
        reader: "tensorrt",
        said: "TensorRT refused the engine: another TensorRT release built it",
        versions: Some(Versions {
            read_after: "expecting library version",
            written_after: " got ",
            said: "the message names {read} and {written}",
        }),
        fix: TENSORRT_FIX,
    },
    Refusal {
        marker: "the engine plan file is generated on an incompatible device",
        cause: OTHER_GPU,
        reader: "tensorrt",
        said: "TensorRT refused the engine: it was built on a GPU of another compute capability",
        versions: Some(Versions {
            read_after: "expecting compute",
            written_after: "got compute",
            said: "the message names compute {read} and {written}",
        }),
        fix: TENSORRT_GPU_FIX,
    },
    Refusal {
        marker: "unsupported model ir version",
        cause: CAUSE,
        reader: "onnxruntime",
        said: "onnxruntime refused the ONNX model: its IR version is newer than this onnxruntime reads, so a newer onnx exported it",
        versions: Some(Versions {
            read_after: "max supported ir version:",
            written_after: "unsupported model ir version:",
            said: "the model's IR version is {written}, this onnxruntime reads up to {read}",
        }),
        fix: "upgrade onnxruntime (onnxruntime-gpu where that is the one installed) to a release that reads the model's IR version, or export the model again with an onnx and opset old enough for the onnxruntime that must run it",
    },
    Refusal {
        marker: "is higher than the checker's",
        cause: CAUSE,
        reader: "onnx",
        said: "onnx's checker refused the model: its IR version is newer than this onnx knows, so a newer onnx exported it",
        versions: None,
        fix: "upgrade onnx (pip install -U onnx) to the release the exporter used, or export the model again with a lower opset",
    },
    Refusal {
        marker: "attempted to read a pytorch file with version",
        cause: CAUSE,
        reader: "torch",
        said: "torch refused the file: its archive format is newer than this torch reads, so a newer torch saved it",
        versions: Some(Versions {
            read_after: "maximum supported version for reading is",
            written_after: "pytorch file with version",
            said: "the file's format is version {written}, this torch reads up to {read}",
        }),
        fix: "upgrade torch to a release at least as new as the one that saved the file, or load it with that release and save it again (torch.save(obj, path, _use_new_zipfile_serialization=False) writes the format torch before 1.6 reads)",
    },
    Refusal {
        marker: "your pytorch script module file is too old",
        cause: CAUSE,
        reader: "torch",
        said: "torch refused the TorchScript file: an older torch exported it, in a format this torch no longer reads",
        versions: None,
        fix: "export the module again (torch.jit.save) with a torch this one reads, or load it with the older torch that wrote it",
    },
    Refusal {
        marker: "cannot deserialize model from a different version of treelite",
        cause: CAUSE,
        reader: "treelite",
        said: "Treelite refused the checkpoint: another Treelite release wrote it, one this release cannot read",
        versions: Some(Versions {
            read_after: "currently running treelite version",
            written_after: "generated from treelite version",
            said: "Treelite {written} wrote it, {read} is running",
        }),
        fix: "install the Treelite release that wrote the checkpoint (pip install treelite==WRITTEN), or build the checkpoint again from the original model with the Treelite installed",
    },
];

pub fn read(text: &str, context: Context) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let refusal = REFUSALS.iter().find(|refusal| lower.contains(refusal.marker))?;
    let stated = refusal.versions.as_ref().map(|versions| {
        (
            versions,
            text::version_after(&lower, versions.read_after),
            text::version_after(&lower, versions.written_after),
        )
    });
    let said = match stated {
        Some((versions, Some(read), Some(written))) => format!(
            "{} ({})",
            refusal.said,
            versions.said.replace("{read}", read).replace("{written}", written)
        ),
        _ => refusal.said.to_string(),
    };
    let written = stated.and_then(|(_, _, written)| written);
    let fix = refusal.fix.replace("WRITTEN", written.unwrap_or("VERSION"));
    // The node's release of the reader, where the node speaks for the log: what
    // the fix changes, not a judgement of the refusal, which the reader made.
    let node = context
        .facts
        .and_then(|facts| facts.package_version(refusal.reader))
        .map(|installed| vec![(None, format!("{} {installed} is installed here", refusal.reader))])
        .unwrap_or_default();
    Some(Reading::stated_outright(refusal.cause, said, node, fix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(message: &str) -> Option<Reading> {
        read(message, Context::alone())
    }

    #[test]
    fn each_reader_names_the_versions_it_refused() {
        let engine = reading("[TensorRT] ERROR: coreReadArchive.cpp (41) - Serialization Error in verifyHeader: 0 (Version tag does not match. Note: Current Version: 96, Serialized Engine Version: 97)").unwrap();
        assert_eq!(engine.cause, CAUSE);
        assert!(
            engine
                .said
                .ends_with("(its serialization tag is 97, this TensorRT's 96)"),
            "{}",
            engine.said
        );
        assert!(engine.fix.contains("trtexec"), "{}", engine.fix);
        let plan = reading("6: The engine plan file is not compatible with this version of TensorRT, expecting library version 8.0.0 got 8.0.1, please rebuild.").unwrap();
        assert!(plan.said.contains("8.0.0 and 8.0.1"), "{}", plan.said);
        let onnx = reading("[ONNXRuntimeError] : 1 : FAIL : Load model from ./640m.onnx failed:model.cc:150 onnxruntime::Model::Model Unsupported model IR version: 10, max supported IR version: 9").unwrap();
        assert!(
            onnx.said.contains("IR version is 10, this onnxruntime reads up to 9"),
            "{}",
            onnx.said
        );
        let archive = reading("version_ <= kMaxSupportedFileFormatVersion INTERNAL ASSERT FAILED at ../caffe2/serialize/inline_container.cc:132, please report a bug to PyTorch. Attempted to read a PyTorch file with version 5, but the maximum supported version for reading is 2. Your PyTorch installation may be too old.").unwrap();
        assert!(
            archive.said.contains("version 5, this torch reads up to 2"),
            "{}",
            archive.said
        );
        let checkpoint = reading("what():  Cannot deserialize model from a different version of Treelite.\nCurrently running Treelite version 2.3.0\nThe model checkpoint was generated from Treelite version 2.1.0").unwrap();
        assert!(
            checkpoint.said.contains("(Treelite 2.1.0 wrote it, 2.3.0 is running)"),
            "{}",
            checkpoint.said
        );
        assert!(checkpoint.fix.contains("treelite==2.1.0"), "{}", checkpoint.fix);
        assert!(checkpoint.stated && checkpoint.settles);
    }

    /// efficientliveportrait19: an engine built on an H100, loaded on a T4.
    /// The GPU, not the release, is what TensorRT refused.
    #[test]
    fn an_engine_refused_for_its_gpu_names_the_gpu_not_the_release() {
        let engine = reading("[TRT] [E] IRuntime::deserializeCudaEngine: Error Code 6: API Usage Error (The engine plan file is generated on an incompatible device, expecting compute 9.0 got compute 7.5, please rebuild.)").unwrap();
        assert_eq!(engine.cause, OTHER_GPU);
        assert!(engine.said.contains("compute 9.0 and 7.5"), "{}", engine.said);
        assert!(engine.fix.contains("hardwareCompatibilityLevel"), "{}", engine.fix);
        // Another release's engine is still the release's.
        let release = reading("6: The engine plan file is not compatible with this version of TensorRT, expecting library version 8.0.0 got 8.0.1, please rebuild.").unwrap();
        assert_eq!(release.cause, CAUSE);
    }

    #[test]
    fn a_refusal_without_versions_still_names_the_cause() {
        let checker = reading(
            "onnx.onnx_cpp2py_export.checker.ValidationError: Your model ir_version is higher than the checker's.",
        )
        .unwrap();
        assert!(checker.fix.contains("pip install -U onnx"), "{}", checker.fix);
        let engine = reading("Version tag does not match.").unwrap();
        assert!(
            engine.said.ends_with("another TensorRT release built it"),
            "{}",
            engine.said
        );
        let checkpoint = reading("what():  Cannot deserialize model from a different version of Treelite.").unwrap();
        assert!(checkpoint.fix.contains("treelite==VERSION"), "{}", checkpoint.fix);
    }

    #[test]
    fn other_load_failures_are_not_a_version_refusal() {
        for message in [
            // Not an engine at all, or damaged: the header's first word is wrong.
            "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::32] Error Code 1: Serialization (Serialization assertion magicTagRead == kMAGIC_TAG failed.Magic tag does not match)",
            "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory",
            "onnxruntime.capi.onnxruntime_pybind11_state.InvalidProtobuf: [ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model from model.onnx failed:Protobuf parsing failed.",
            "[TRT] [E] 4: [runtime.cpp::deserializeCudaEngine::50] Error Code 4: Internal Error (Engine deserialization failed.)",
        ] {
            assert!(reading(message).is_none(), "{message}");
        }
    }

    #[test]
    fn the_nodes_release_of_the_reader_is_shown_where_the_node_speaks() {
        let said = super::super::read_on_recorded_h100(
            |_| {},
            |context| read("Attempted to read a PyTorch file with version 11, but the maximum supported version for reading is 10.", context),
        )
        .unwrap();
        assert_eq!(said.node.len(), 1, "{:?}", said.node);
        assert!(said.node[0].1.starts_with("torch "), "{:?}", said.node);
        assert_eq!(said.node[0].0, None);
    }
}
