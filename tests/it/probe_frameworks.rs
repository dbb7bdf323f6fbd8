//! `envdoctor probe` reads framework build facts from the files the wheels
//! install, laid out in a real virtual environment exactly as the wheels lay
//! them out (the fixtures are real files from those wheels; see
//! tests/fixtures/frameworks/README.md).

use crate::common;

use std::path::Path;

use common::*;
use envdoctor::snapshot::frameworks::{Build, Framework, Frameworks, NativeLibrary};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/frameworks");

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap()
}

fn probe_frameworks(python: &Path, extra_env: &[(&str, &Path)]) -> Frameworks {
    let cache = tempfile::tempdir().unwrap();
    let snapshot = probe_json(cache.path(), python, &[], extra_env);
    serde_json::from_value(snapshot["frameworks"].clone()).expect("frameworks decode into their types")
}

/// A training stack as pip leaves it: each package directory beside its dist-info.
fn install_stack(site: &Path) {
    write_dist_info(site, "torch", "2.3.1");
    write_file(&site.join("torch/__init__.py"), "");
    write_file(&site.join("torch/version.py"), fixture("torch-2.3.1+cu121.version.py"));
    write_file(&site.join("torch/lib/libtorch_cuda.so"), "");

    write_dist_info(site, "torchvision", "0.18.1");
    write_file(&site.join("torchvision/__init__.py"), "");
    write_file(
        &site.join("torchvision/version.py"),
        fixture("torchvision-0.18.1+cu121.version.py"),
    );

    write_dist_info(site, "deepspeed", "0.16.3");
    write_file(&site.join("deepspeed/__init__.py"), "");
    write_file(
        &site.join("deepspeed/git_version_info_installed.py"),
        fixture("deepspeed-0.16.3.git_version_info_installed.py"),
    );

    write_dist_info(site, "bitsandbytes", "0.43.1");
    write_file(&site.join("bitsandbytes/__init__.py"), "");
    for library in fixture("bitsandbytes-0.43.1-py3-none-manylinux_2_24_x86_64.native-libraries.txt").lines() {
        write_file(&site.join("bitsandbytes").join(library), "");
    }

    write_dist_info(site, "xformers", "0.0.27.post2");
    write_file(&site.join("xformers/__init__.py"), "");
    // As xformers' setup.py generate_version_py() writes it.
    write_file(
        &site.join("xformers/version.py"),
        "# noqa: C801\n__version__ = \"0.0.27.post2\"\n",
    );
    write_file(
        &site.join("xformers/cpp_lib.json"),
        fixture("xformers-0.0.27.post2.cpp_lib.json"),
    );
    write_file(&site.join("xformers/_C.so"), "");

    // Installed from the release wheel's URL, so direct_url.json names it.
    write_dist_info(site, "flash_attn", "2.6.3");
    write_file(
        &site.join("flash_attn-2.6.3.dist-info/direct_url.json"),
        r#"{"url": "https://github.com/Dao-AILab/flash-attention/releases/download/v2.6.3/flash_attn-2.6.3+cu123torch2.4cxx11abiFALSE-cp311-cp311-linux_x86_64.whl", "archive_info": {}}"#,
    );
    write_file(&site.join("flash_attn/__init__.py"), "");
    write_file(&site.join("flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so"), "");

    write_dist_info(site, "triton", "3.1.0");
    write_file(&site.join("triton/__init__.py"), "");
    for backend in ["amd", "nvidia"] {
        write_file(&site.join(format!("triton/backends/{backend}/compiler.py")), "");
    }
    write_file(&site.join("triton/backends/__init__.py"), "");

    write_dist_info(site, "transformers", "4.44.2");
    write_file(&site.join("transformers/__init__.py"), "");
}

#[test]
fn a_training_stack_reports_its_build_facts() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let site = site_packages(&python);
    install_stack(&site);

    let frameworks = probe_frameworks(&python, &[]);
    assert_eq!(
        frameworks.keys().collect::<Vec<_>>(),
        [
            "bitsandbytes",
            "deepspeed",
            "flash-attn",
            "torch",
            "torchvision",
            "transformers",
            "triton",
            "xformers"
        ]
    );
    for (name, framework) in &frameworks {
        assert_eq!(&framework.name, name);
        assert_eq!(framework.problems, Vec::<String>::new(), "{name}");
    }

    let torch = &frameworks["torch"];
    assert_eq!(torch.distribution.as_deref(), Some("torch"));
    assert_eq!(torch.version.as_deref(), Some("2.3.1"));
    assert!(
        torch
            .package_dir
            .as_deref()
            .is_some_and(|dir| dir.ends_with("site-packages/torch")),
        "{:?}",
        torch.package_dir
    );
    let Some(Build::Torch(build)) = &torch.build else {
        panic!("{torch:?}")
    };
    assert_eq!(build.version.as_deref(), Some("2.3.1+cu121"));
    assert_eq!(build.cuda.as_deref(), Some("12.1"));
    assert_eq!(build.hip, None);
    assert_eq!(build.libtorch_cuda, Some(true));

    let Some(Build::Torch(vision)) = &frameworks["torchvision"].build else {
        panic!()
    };
    assert_eq!(vision.cuda.as_deref(), Some("12.1"));

    let Some(Build::Deepspeed(deepspeed)) = &frameworks["deepspeed"].build else {
        panic!()
    };
    assert_eq!(deepspeed.accelerator_name.as_deref(), Some("cuda"));
    let torch_info = deepspeed.torch_info.as_ref().unwrap();
    assert_eq!(
        (torch_info.version.as_deref(), torch_info.cuda_version.as_deref()),
        (Some("2.3"), Some("12.4"))
    );
    assert_eq!(deepspeed.installed_ops.get("fused_adam"), Some(&false));

    let Some(Build::Bitsandbytes(bnb)) = &frameworks["bitsandbytes"].build else {
        panic!()
    };
    assert_eq!(bnb.native_libraries.len(), 15);
    assert!(bnb.native_libraries.contains(&NativeLibrary {
        file: "libbitsandbytes_cuda121_nocublaslt.so".into(),
        backend: "cuda".into(),
        version: Some("12.1".into()),
        variant: Some("nocublaslt".into()),
    }));

    let Some(Build::Xformers(xformers)) = &frameworks["xformers"].build else {
        panic!()
    };
    assert_eq!(
        (
            xformers.cuda.as_deref(),
            xformers.torch.as_deref(),
            xformers.extension.as_deref()
        ),
        (Some("12.1"), Some("2.4.0+cu121"), Some("_C.so"))
    );

    let Some(Build::FlashAttn(flash)) = &frameworks["flash-attn"].build else {
        panic!()
    };
    assert_eq!(
        flash.extension.as_deref(),
        Some("flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so")
    );
    let tags = flash.wheel_tags.as_ref().unwrap();
    assert_eq!(
        (
            tags.source.as_str(),
            tags.cuda.as_deref(),
            tags.torch.as_deref(),
            tags.cxx11_abi
        ),
        ("direct_url", Some("12.3"), Some("2.4"), Some(false))
    );

    let Some(Build::Triton(triton)) = &frameworks["triton"].build else {
        panic!()
    };
    assert_eq!(triton.backends, Some(vec!["amd".to_string(), "nvidia".to_string()]));

    let transformers = &frameworks["transformers"];
    assert_eq!(
        (transformers.version.as_deref(), &transformers.build),
        (Some("4.44.2"), &None)
    );
}

#[test]
fn a_venv_without_frameworks_has_none() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let cache = tempfile::tempdir().unwrap();
    let snapshot = probe_json(cache.path(), &python, &[], &[]);
    assert_eq!(snapshot["frameworks"], serde_json::json!({}));
}

/// The classic "I upgraded torch but import still loads the old one": a copy on
/// PYTHONPATH shadows the installed distribution.
#[test]
fn an_import_that_does_not_come_from_the_installed_distribution_is_a_problem() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let site = site_packages(&python);
    write_dist_info(&site, "torch", "2.3.1");
    write_file(&site.join("torch/__init__.py"), "");
    write_file(&site.join("torch/version.py"), fixture("torch-2.3.1+cu121.version.py"));
    let shadow = root.path().join("shadow");
    write_file(&shadow.join("torch/__init__.py"), "");
    write_file(
        &shadow.join("torch/version.py"),
        fixture("torch-1.10.0+cu102.version.py"),
    );

    let frameworks = probe_frameworks(&python, &[("PYTHONPATH", &shadow)]);
    let torch = &frameworks["torch"];
    assert_eq!(torch.package_dir.as_deref(), Some(shadow.join("torch").as_path()));
    let Some(Build::Torch(build)) = &torch.build else {
        panic!("{torch:?}")
    };
    assert_eq!(
        build.cuda.as_deref(),
        Some("10.2"),
        "the facts are those of what import loads"
    );
    assert!(
        torch
            .problems
            .iter()
            .any(|problem| problem.contains("does not come from the installed distribution")),
        "{:?}",
        torch.problems
    );
    assert!(
        torch
            .problems
            .iter()
            .any(|problem| problem.contains("files of two installs are mixed")),
        "{:?}",
        torch.problems
    );
}

/// adapter-transformers ships its own `transformers/`: with both installed,
/// one overwrote the other.
#[test]
fn two_distributions_sharing_one_package_directory_are_a_problem() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let site = site_packages(&python);
    write_dist_info(&site, "transformers", "4.44.2");
    write_dist_info(&site, "adapter_transformers", "3.2.1");
    write_file(&site.join("transformers/__init__.py"), "");

    let frameworks = probe_frameworks(&python, &[]);
    for name in ["transformers", "adapter-transformers"] {
        let framework: &Framework = &frameworks[name];
        assert!(
            framework
                .problems
                .iter()
                .any(|problem| problem.contains("also installed by")),
            "{name}: {:?}",
            framework.problems
        );
    }
}

/// Broken installs are problems of their entry; the probe itself succeeds.
#[test]
fn broken_framework_files_are_problems_not_failures() {
    let root = tempfile::tempdir().unwrap();
    let python = create_venv(&root.path().join("venv"), false);
    let site = site_packages(&python);
    // DeepSpeed installed, its build record truncated mid-write.
    write_dist_info(&site, "deepspeed", "0.16.3");
    write_file(&site.join("deepspeed/__init__.py"), "");
    write_file(
        &site.join("deepspeed/git_version_info_installed.py"),
        "version='0.16.3'\ninstalled_ops={'async_io': False, 'fused_ad",
    );
    // xformers with a cpp_lib.json that is not JSON.
    write_dist_info(&site, "xformers", "0.0.27.post2");
    write_file(&site.join("xformers/__init__.py"), "");
    write_file(&site.join("xformers/cpp_lib.json"), "{\"version\": ");
    // A torch directory left behind by an uninstall: no metadata, no __init__.py.
    write_file(&site.join("torch/lib/libtorch_cuda.so"), "");
    // bitsandbytes metadata without its package.
    write_dist_info(&site, "bitsandbytes", "0.43.1");

    let frameworks = probe_frameworks(&python, &[]);
    let problems = |name: &str| frameworks[name].problems.join("\n");
    assert!(
        problems("deepspeed").contains("`installed_ops` is not readable"),
        "{}",
        problems("deepspeed")
    );
    assert!(
        problems("xformers").contains("cpp_lib.json: malformed JSON"),
        "{}",
        problems("xformers")
    );
    assert!(
        problems("torch").contains("no installed distribution provides it"),
        "{}",
        problems("torch")
    );
    assert!(problems("torch").contains("namespace package"), "{}", problems("torch"));
    assert!(
        problems("bitsandbytes").contains("`import bitsandbytes` fails"),
        "{}",
        problems("bitsandbytes")
    );
    assert_eq!(frameworks["bitsandbytes"].package_dir, None);
}
